package reconciler

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name, value string
		own         bool
		want        string
	}{
		{"load-balance", "ewma", false, api.VerdictHonoured},
		// Not ingress-nginx's: it limited nothing there, so it is no protection to lose.
		{"rate-limit", "100", false, api.VerdictIgnored},
		{"rate-limit-window", "1m", false, api.VerdictIgnored},
		{"auth-url", "http://auth/verify", false, api.VerdictHonoured},       // policies
		{"auth-type", "basic", false, api.VerdictHonoured},                   // policies
		{"whitelist-source-range", "10.0.0.0/8", false, api.VerdictHonoured}, // policies
		{"denylist-source-range", "10.0.0.0/8", false, api.VerdictHonoured},  // policies
		{"auth-tls-verify-client", "on", false, api.VerdictHonoured},         // policies
		{"auth-tls-match-cn", "CN=alice", false, api.VerdictRefused},
		{"backend-protocol", "HTTPS", false, api.VerdictHonoured}, // policies
		{"backend-protocol", "GRPC", false, api.VerdictHonoured},
		{"backend-protocol", "AJP", false, api.VerdictRefused},
		{"backend-protocol", "fcgi", false, api.VerdictRefused},
		{"backend-protocol", "http", false, api.VerdictHonoured},
		{"limit-rps", "5", false, api.VerdictHonoured}, // policies
		{"global-rate-limit", "5", false, api.VerdictRefused},
		{"proxy-ssl-verify", "on", false, api.VerdictHonoured},
		{"proxy-ssl-verify-depth", "2", false, api.VerdictRefused},
		{"satisfy", "any", false, api.VerdictRefused},
		{"enable-modsecurity", "true", false, api.VerdictHonoured},
		{"enable-modsecurity", "false", false, api.VerdictHonoured},
		{"modsecurity-snippet", "SecRuleEngine On\nSecRuleRemoveById 920350", false, api.VerdictHonoured},
		{"modsecurity-snippet", "SecRule ARGS \"@rx x\" \"id:1,deny\"", false, api.VerdictRefused},
		{"modsecurity-transaction-id", "$request_id", false, api.VerdictHonoured},
		{"modsecurity-transaction-id", "$host", false, api.VerdictRefused},
		{"force-ssl-redirect", "true", false, api.VerdictHonoured}, // policies
		{"ssl-passthrough", "true", false, api.VerdictHonoured},
		{"configuration-snippet", "return 200;", false, api.VerdictTranslated},
		{"configuration-snippet", "lua_need_request_body on;", false, api.VerdictRefused},
		{"some-new-snippet", "x", false, api.VerdictIgnored},   // not ingress-nginx's: it ignored it
		{"proxy-body-size", "50m", false, api.VerdictHonoured}, // policies
		{"server-alias", "www.example.com", false, api.VerdictHonoured},
		{"enable-influxdb", "true", false, api.VerdictIgnored},
		{"enable-cors", "true", false, api.VerdictHonoured},
		{"preserve-trailing-slash", "true", false, api.VerdictIgnored},
		// Unknown names under ingress-nginx's prefix are not ingress-nginx's, which ignored
		// them: ignored (see TestUnknownAnnotation); unknown restyplane.io names are
		// refused (a typo).
		{"auth-jwt-issuer", "x", false, api.VerdictIgnored},
		{"client-cert-required", "true", false, api.VerdictIgnored},
		{"frobnicate", "x", false, api.VerdictIgnored},
		{"frobnicate", "x", true, api.VerdictRefused},
		{"load-balance", "ewma", true, api.VerdictHonoured},
	} {
		if got, why := classify(c.name, c.value, c.own); got != c.want {
			t.Errorf("classify(%q, %q, own %t) = %s (%s), want %s", c.name, c.value, c.own, got, why, c.want)
		}
	}
}

// TestAnnotationTableIsRead: every honoured annotation is read by parseAnnotations (a value
// it cannot take is an error that names it), and every refused one refuses the Ingress.
func TestAnnotationTableIsRead(t *testing.T) {
	for name, r := range annotationTable {
		full := nginxPrefix + name
		switch r.verdict {
		case api.VerdictHonoured:
			if name == "canary-weight" || name == "canary-by-header" || name == "canary-by-header-value" || name == "canary-by-cookie" {
				continue // read only with canary; checked by TestParseAnnotations
			}
			in := map[string]string{full: "\x00bad"}
			if _, ok := affinityGroup.rules[name]; ok && name != "affinity" {
				in[nginxPrefix+"affinity"] = "cookie" // read only with affinity
			}
			if _, err := parseAnnotations(in); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("honoured %s: a bad value gives %v, want an error naming it (is it read?)", name, err)
			}
		case api.VerdictRefused:
			if _, err := parseAnnotations(map[string]string{full: "on"}); err == nil {
				t.Errorf("refused %s: parseAnnotations accepts it", name)
			}
		case api.VerdictTranslated:
			if _, err := parseAnnotations(map[string]string{full: "\x00bad"}); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("translated %s: a bad value gives %v, want an error naming it", name, err)
			}
			if name == "auth-snippet" {
				a, err := parseAnnotations(map[string]string{full: "proxy_set_header X-A a;", nginxPrefix + "auth-url": "http://auth.test/"})
				if err != nil || a.auth == nil || a.auth.External == nil || len(a.auth.External.RequestHeaders) != 1 {
					t.Errorf("translated %s: proxy_set_header X-A a; gives %v, %+v; want it read", name, err, a.auth)
				}
				continue
			}
			if a, err := parseAnnotations(map[string]string{full: "deny all;"}); err != nil || a.snippet == nil || !a.snippet.deny {
				t.Errorf("translated %s: deny all; gives %v, %+v; want it read", name, err, a.snippet)
			}
		case api.VerdictIgnored:
			a, err := parseAnnotations(map[string]string{full: "on"})
			if err != nil || len(a.ignored) != 1 {
				t.Errorf("ignored %s: err %v, ignored %v; want served and listed", name, err, a.ignored)
			}
		}
	}
}

// TestAnnotationGroupsReadTheirOwn: each group's honoured annotations are read by that
// group's parser, beside which they are declared (a value it cannot take is an error that
// names the annotation), and a group without a parser honours nothing.
func TestAnnotationGroupsReadTheirOwn(t *testing.T) {
	conditional := map[string]bool{"canary-weight": true, "canary-by-header": true, "canary-by-header-value": true,
		"canary-by-cookie": true} // read only with canary
	for _, g := range annotationGroups {
		for name, r := range g.rules {
			if r.verdict != api.VerdictHonoured || conditional[name] {
				continue
			}
			if g.parse == nil {
				t.Errorf("group %s honours %s but has no parser", g.name, name)
				continue
			}
			get := func(n string) (string, bool) {
				if _, ok := g.rules[n]; ok && n == "affinity" && name != n {
					return "cookie", true // the session cookie's annotations are read with affinity only
				}
				return "\x00bad", n == name
			}
			if err := g.parse(get, &annotations{sslRedirect: true}); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("group %s, honoured %s: a bad value gives %v, want an error naming it (does its parser read it?)", g.name, name, err)
			}
			if annotationTable[name].scope == "" {
				t.Errorf("group %s, honoured %s: no scope", g.name, name)
			}
		}
	}
}

// annotationMarkdown renders the table for the README.
func annotationMarkdown() string {
	names := make([]string, 0, len(annotationTable))
	for n := range annotationTable {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("| annotation (under `nginx.ingress.kubernetes.io/` or `restyplane.io/`) | verdict | scope | why |\n|---|---|---|---|\n")
	for _, n := range names {
		r := annotationTable[n]
		why := r.why
		if r.harmless != nil {
			why += " (harmless values such as `false`, or `HTTP` for backend-protocol, are not refused)"
		}
		b.WriteString("| `" + n + "` | " + r.verdict + " | " + r.scope + " | " + strings.TrimSpace(why) + " |\n")
	}
	return b.String()
}

// TestREADMEAnnotationTable: the README's annotation table is the code's. Regenerate it
// with UPDATE_README=1 go test ./reconciler -run TestREADMEAnnotationTable.
func TestREADMEAnnotationTable(t *testing.T) {
	const begin, end = "<!-- annotations:begin -->\n", "<!-- annotations:end -->"
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", strings.TrimSpace(begin), end)
	}
	want := annotationMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if os.Getenv("UPDATE_README") == "1" {
			if err := os.WriteFile("../README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's annotation table differs from annotationTable; run UPDATE_README=1 go test ./reconciler -run TestREADMEAnnotationTable")
	}
}
