package e2e

import (
	"fmt"
	"strconv"

	networkingv1 "k8s.io/api/networking/v1"
)

// checkProtections sends the requests that each protection annotation of a served
// Ingress must stop (no credentials, another source address, no client certificate, a
// burst past the rate) and returns the protections checked and those not enforced.
func checkProtections(in *instance, p corpusProbe, ing *networkingv1.Ingress) (checked, failed []string) {
	expect := func(name string, q corpusProbe, ok func(corpusAnswer) bool) {
		checked = append(checked, name)
		if a := q.send(in); !ok(a) {
			failed = append(failed, fmt.Sprintf("%s not enforced: GET %s%s from %s (TLS %t): %d %q %v", name, q.host, q.path, q.local, q.tls, a.code, a.body, a.err))
		}
	}
	bare := p
	bare.hdr = nil
	if at, _ := annotation(ing, "auth-type"); at == "basic" {
		expect("auth-type basic", bare, func(a corpusAnswer) bool { return a.code == 401 })
	}
	if _, ok := annotation(ing, "auth-url"); ok {
		// Without credentials the external auth answers no: a redirect to auth-signin, a
		// 401 or 403, or an error since the source's auth service is not here. Never the
		// upstream.
		expect("auth-url", bare, func(a corpusAnswer) bool { return a.err == nil && a.code >= 300 && !p.fromUpstream(a) })
	}
	if ranges, ok := annotation(ing, "whitelist-source-range"); ok {
		if outside := loopbackIn(ranges, false); outside != "" {
			q := p
			q.local = outside
			expect("whitelist-source-range", q, func(a corpusAnswer) bool { return a.code == 403 })
		}
	}
	if _, ok := annotation(ing, "auth-tls-secret"); ok && p.tls {
		if v, _ := annotation(ing, "auth-tls-verify-client"); v == "" || v == "on" {
			q := p
			q.cert = nil
			// nginx answers 400 to a request without the certificate it requires, or
			// redirects to auth-tls-error-page.
			expect("auth-tls-verify-client", q, func(a corpusAnswer) bool { return a.err != nil || (a.code >= 300 && !p.fromUpstream(a)) })
		}
	}
	if rps, ok := annotation(ing, "limit-rps"); ok {
		r, _ := strconv.Atoi(rps)
		mult := 5
		if m, ok := annotation(ing, "limit-burst-multiplier"); ok {
			mult, _ = strconv.Atoi(m)
		}
		// A burst past rate × multiplier within a second meets the limit; a limit too high
		// to reach from one test client is left unchecked.
		if burst := r * mult; r > 0 && burst <= 100 {
			checked = append(checked, "limit-rps")
			limited := false
			for i := 0; i < 2*burst+20 && !limited; i++ {
				a := p.send(in)
				limited = a.code == 503 || a.code == 429
			}
			if !limited {
				failed = append(failed, fmt.Sprintf("limit-rps %d (burst %d) not enforced: %d requests to %s%s, none limited", r, burst, 2*burst+20, p.host, p.path))
			}
		}
	}
	return checked, failed
}
