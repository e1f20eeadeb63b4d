package e2e

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// accessLists: an allow list answers 403 to a loopback address it does not list; a deny
// list answers 403 to a loopback address it lists.
func (g *corpusGuard) accessLists() {
	forbidden := func(a corpusAnswer) bool { return a.err == nil && a.code == 403 }
	if ranges, name := allowList(g.ing); name != "" {
		if outside := loopbackIn(ranges, false); outside != "" {
			q := g.p
			q.local = outside
			g.expect(name+" (an unlisted address: 403)", q, false, forbidden)
		}
	}
	if ranges, ok := annotation(g.ing, "denylist-source-range"); ok {
		if inside := loopbackIn(ranges, true); inside != "" {
			q := g.p
			q.local = inside
			g.expect("denylist-source-range (a listed address: 403)", q, false, forbidden)
		}
	}
}

// httpsRedirect: force-ssl-redirect, and ssl-redirect on a host served over HTTPS, answer
// plain HTTP with a 308 to the same host over HTTPS.
func (g *corpusGuard) httpsRedirect() {
	force, _ := annotation(g.ing, "force-ssl-redirect")
	redirect, _ := annotation(g.ing, "ssl-redirect")
	name := ""
	switch {
	case force == "true":
		name = "force-ssl-redirect"
	case redirect == "true" && g.p.tls:
		name = "ssl-redirect"
	default:
		return
	}
	if v, _ := annotation(g.ing, "ssl-passthrough"); v == "true" {
		return // plain HTTP of a passthrough host is served by its paths
	}
	q := g.p
	q.tls = false
	g.expect(name+" (plain HTTP: 308 to https)", q, true, func(a corpusAnswer) bool {
		return a.err == nil && a.code == 308 && strings.HasPrefix(a.location, "https://"+g.p.host)
	})
}

// clientCertificates: auth-tls-verify-client on answers a TLS request without a client
// certificate 400, or redirects it to auth-tls-error-page.
func (g *corpusGuard) clientCertificates() {
	if _, ok := annotation(g.ing, "auth-tls-secret"); !ok || !g.p.tls {
		return
	}
	if v, _ := annotation(g.ing, "auth-tls-verify-client"); v != "" && v != "on" {
		return
	}
	page, _ := annotation(g.ing, "auth-tls-error-page")
	q := g.p
	q.cert = nil
	g.expect("auth-tls-verify-client (no client certificate: 400)", q, true, func(a corpusAnswer) bool {
		if page != "" {
			return a.err == nil && a.code == 302 && a.location == page
		}
		return a.err == nil && a.code == 400
	})
}

// waf: ModSecurity in blocking mode (SecRuleEngine On) with the core rules answers 403
// to a request the rules know as an attack.
func (g *corpusGuard) waf() {
	on, _ := annotation(g.ing, "enable-modsecurity")
	crs, _ := annotation(g.ing, "enable-owasp-core-rules")
	snippet, _ := annotation(g.ing, "modsecurity-snippet")
	if on != "true" || crs != "true" || !strings.Contains(snippet, "SecRuleEngine On") {
		return
	}
	q := g.p
	q.path += "?q=" + url.QueryEscape("<script>alert(document.cookie)</script>")
	g.expect("enable-modsecurity (a CRS attack: 403)", q, false, func(a corpusAnswer) bool { return a.err == nil && a.code == 403 })
}

// cors: enable-cors answers a preflight from an allowed origin itself, 204 with the
// origin allowed.
func (g *corpusGuard) cors() {
	if v, _ := annotation(g.ing, "enable-cors"); v != "true" {
		return
	}
	origin := "https://corpus.test"
	if v, ok := annotation(g.ing, "cors-allow-origin"); ok && strings.TrimSpace(strings.Split(v, ",")[0]) != "*" {
		origin = strings.Replace(strings.TrimSpace(strings.Split(v, ",")[0]), "*.", "corpus.", 1)
	}
	q := g.p.with("Origin", origin).with("Access-Control-Request-Method", "GET")
	q.method = "OPTIONS"
	g.expect("enable-cors (a preflight: 204)", q, true, func(a corpusAnswer) bool {
		allowed := a.header.Get("Access-Control-Allow-Origin")
		return a.err == nil && a.code == 204 && (allowed == origin || allowed == "*")
	})
}

// snippetHeaders: a response header a configuration-snippet sets from a variable
// ($req_id…) reaches the client filled in.
func (g *corpusGuard) snippetHeaders() {
	snippet, _ := annotation(g.ing, "configuration-snippet")
	for _, m := range snippetHeaderRe.FindAllStringSubmatch(snippet, -1) {
		name := m[1] + m[3]
		if !strings.Contains(m[2]+m[4], "$") || g.p.redirect != "" {
			continue
		}
		g.expect("configuration-snippet ("+name+" filled in)", g.p, false, func(a corpusAnswer) bool {
			v := a.header.Get(name)
			return a.err == nil && v != "" && !strings.Contains(v, "$")
		})
	}
}

// snippetHeaderRe finds the response headers of a snippet: more_set_headers "Name: value"
// and add_header Name value.
var snippetHeaderRe = regexp.MustCompile(`more_set_headers\s+"([A-Za-z0-9-]+):\s*([^"]*)"|add_header\s+([A-Za-z0-9-]+)\s+(\S+)`)

// rateLimit: a burst past limit-rps × limit-burst-multiplier within a second meets the
// limit; a limit too high to reach from one test client is left unchecked.
func (g *corpusGuard) rateLimit() {
	rps, ok := annotation(g.ing, "limit-rps")
	if !ok {
		return
	}
	r, _ := strconv.Atoi(rps)
	mult := 5
	if m, ok := annotation(g.ing, "limit-burst-multiplier"); ok {
		mult, _ = strconv.Atoi(m)
	}
	burst := r * mult
	if r <= 0 || burst > 100 {
		return
	}
	g.checked = append(g.checked, "limit-rps")
	for i := 0; i < 2*burst+20; i++ {
		if a := g.p.send(g.in); a.code == 503 || a.code == 429 {
			return
		}
	}
	g.failed = append(g.failed, fmt.Sprintf("limit-rps %d (burst %d) not enforced: %d requests to %s%s, none limited", r, burst, 2*burst+20, g.p.host, g.p.path))
}
