package e2e

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// corpusGuard sends the requests that the protection annotations of a served Ingress must
// stop, and keeps the protections checked and those not enforced.
type corpusGuard struct {
	in      *instance
	auth    *corpusAuth
	p       corpusProbe // the probe that the upstream answers
	ing     *networkingv1.Ingress
	checked []string
	failed  []string
}

// checkProtections runs every check of the Ingress's protection annotations: basic and
// external auth, allow and deny lists, HTTPS redirects, client certificates, the WAF in
// blocking mode, CORS preflights and rate limits. Each sends real requests through the
// proxy, and each is counted as checked.
func checkProtections(in *instance, auth *corpusAuth, p corpusProbe, ing *networkingv1.Ingress) (checked, failed []string) {
	g := &corpusGuard{in: in, auth: auth, p: p, ing: ing}
	g.basicAuth()
	g.externalAuth()
	g.accessLists()
	g.httpsRedirect()
	g.clientCertificates()
	g.waf()
	g.cors()
	g.snippetHeaders()
	g.rateLimit()
	return g.checked, g.failed
}

// expect sends q (without following a redirect when once) and records a failure when the
// answer is not what ok accepts.
func (g *corpusGuard) expect(name string, q corpusProbe, once bool, ok func(corpusAnswer) bool) corpusAnswer {
	g.checked = append(g.checked, name)
	var a corpusAnswer
	if once {
		a = q.once(g.in)
	} else {
		a = q.send(g.in)
	}
	if !ok(a) {
		g.failed = append(g.failed, fmt.Sprintf("%s not enforced: %s %s%s from %s (TLS %t, headers %q): %d %q location %q %v",
			name, q.methodName(), q.host, q.path, q.local, q.tls, q.hdr, a.code, oneLine(a.body, 80), a.location, a.err))
	}
	return a
}

func (q corpusProbe) methodName() string {
	if q.method == "" {
		return "GET"
	}
	return q.method
}

// without returns the probe without the request headers named.
func (q corpusProbe) without(names ...string) corpusProbe {
	var hdr []string
	for i := 0; i+1 < len(q.hdr); i += 2 {
		drop := false
		for _, n := range names {
			drop = drop || strings.EqualFold(q.hdr[i], n)
		}
		if !drop {
			hdr = append(hdr, q.hdr[i], q.hdr[i+1])
		}
	}
	q.hdr = hdr
	return q
}

// with returns the probe with a request header added or replaced.
func (q corpusProbe) with(name, value string) corpusProbe {
	q = q.without(name)
	q.hdr = append(append([]string(nil), q.hdr...), name, value)
	return q
}

// basicAuth: auth-type basic answers 401 to a request without credentials and to a wrong
// password (the probe, with the Secret's credentials, is answered by the upstream).
func (g *corpusGuard) basicAuth() {
	if at, _ := annotation(g.ing, "auth-type"); at != "basic" {
		return
	}
	denied := func(a corpusAnswer) bool {
		return a.err == nil && a.code == 401 && strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Basic ")
	}
	g.expect("auth-type basic (no credentials: 401)", g.p.without("Authorization"), false, denied)
	g.expect("auth-type basic (wrong password: 401)", g.p.with("Authorization", basic("apr", "wrong")), false, denied)
}

// externalAuth: with auth-url the request goes through the harness's auth service, which
// answers 401 without its header: the client gets the 401, or a redirect to auth-signin.
// A request it lets through reached it with the headers an auth-snippet sets.
func (g *corpusGuard) externalAuth() {
	if _, ok := annotation(g.ing, "auth-url"); !ok {
		return
	}
	_, signin := annotation(g.ing, "auth-signin")
	g.expect("auth-url (the auth service denies: 401)", g.p.without(corpusAuthHeader), true, func(a corpusAnswer) bool {
		return a.err == nil && !g.p.fromUpstream(a) && (a.code == 401 || signin && a.code == 302 && a.location != "")
	})
	g.checked = append(g.checked, "auth-url (asked by the auth service)")
	g.p.send(g.in)
	asked := g.auth.asked(g.p.host, g.p.path)
	if asked == nil {
		g.failed = append(g.failed, fmt.Sprintf("auth-url: the auth service was not asked for %s%s", g.p.host, g.p.path))
		return
	}
	snippet, _ := annotation(g.ing, "auth-snippet")
	for _, line := range strings.Split(snippet, ";") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "proxy_set_header" && asked.Get(f[1]) == "" {
			g.failed = append(g.failed, fmt.Sprintf("auth-snippet: the auth service got no %s (%s)", f[1], strings.TrimSpace(line)))
		}
	}
	if snippet != "" {
		g.checked = append(g.checked, "auth-snippet (its headers reach the auth service)")
	}
}
