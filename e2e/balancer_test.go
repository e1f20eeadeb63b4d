package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// tally sends n requests through the proxy and counts answers by upstream name.
func (in *instance) tally(n int, host, path string, hdr ...string) map[string]int {
	in.t.Helper()
	out := map[string]int{}
	for i := 0; i < n; i++ {
		code, body := in.get(host, path, hdr...)
		if code != 200 {
			in.t.Fatalf("request %d: %d %q", i, code, body)
		}
		out[strings.Fields(body)[0]]++
	}
	return out
}

func TestBalancers(t *testing.T) {
	in := start(t)
	a, b := newUpstream(t, "a", 200, 0), newUpstream(t, "b", 200, 0)
	// The slow upstream is 100 ms slower: with 30 ms, a machine whose both cores are busy
	// delayed the fast one by as much now and then, and EWMA rightly saw less difference
	// (a -count=3 run under load gave the fast one 64% instead of at least 75%).
	fast, slow := newUpstream(t, "fast", 200, 0), newUpstream(t, "slow", 200, 100*time.Millisecond)
	main := backend("main", a.endpoint(1))
	main["canary"] = map[string]any{"backend": "alt", "weight": 20, "header": "X-Canary", "headerValue": "always"}
	in.must("POST", "/api/v1/backends", backend("alt", b.endpoint(1)))
	in.must("POST", "/api/v1/backends", main)
	hash := backend("hash", a.endpoint(1), b.endpoint(1))
	hash["loadBalance"], hash["hashBy"] = "chash", "$arg_user"
	in.must("POST", "/api/v1/backends", hash)
	ewma := backend("ewma", fast.endpoint(1), slow.endpoint(1))
	ewma["loadBalance"] = "ewma"
	in.must("POST", "/api/v1/backends", ewma)
	in.must("POST", "/api/v1/servers", server("lb", "lb.test",
		location("/canary", "main"), location("/hash", "hash"), location("/ewma", "ewma")))
	in.waitSynced()

	t.Run("canary weight", func(t *testing.T) {
		const n = 1000
		got := in.tally(n, "lb.test", "/canary")
		share := float64(got["b"]) / n
		// 20% of 1000 Bernoulli trials: sd ≈ 1.3%; ±5 points is over 3.5 sd.
		if share < 0.15 || share > 0.25 {
			t.Fatalf("canary share = %.3f (%v), want 0.20 ± 0.05", share, got)
		}
		t.Logf("canary share %.3f over %d requests", share, n)
	})
	t.Run("canary header", func(t *testing.T) {
		if got := in.tally(50, "lb.test", "/canary", "X-Canary", "always"); got["b"] != 50 {
			t.Fatalf("with the canary header: %v, want all 50 on b", got)
		}
	})
	t.Run("consistent hash", func(t *testing.T) {
		seen := map[string]bool{}
		for u := 0; u < 20; u++ {
			got := in.tally(10, "lb.test", fmt.Sprintf("/hash?user=u%d", u))
			if len(got) != 1 {
				t.Fatalf("user u%d spread over %v, want one peer", u, got)
			}
			for k := range got {
				seen[k] = true
			}
		}
		if len(seen) != 2 {
			t.Fatalf("20 keys all hashed to %v, want both peers used", seen)
		}
	})
	t.Run("ewma", func(t *testing.T) {
		const n = 200
		got := in.tally(n, "lb.test", "/ewma")
		if share := float64(got["fast"]) / n; share < 0.75 {
			t.Fatalf("fast upstream share = %.2f (%v), want ≥ 0.75", share, got)
		}
		t.Logf("ewma: %v", got)
	})
}

func TestRotatedCertificateNeedsNoReload(t *testing.T) {
	in := start(t)
	a := newUpstream(t, "a", 200, 0)
	cert1, key1 := selfSigned(t, "secure.test", 1)
	cert2, key2 := selfSigned(t, "secure.test", 2)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "secure", "cert": cert1, "key": key1})
	srv := server("secure", "secure.test", location("/", "web"))
	srv["tls"] = map[string]any{"certificate": "secure"}
	in.must("POST", "/api/v1/servers", srv)
	in.waitSynced()
	if got, want := in.servedCert("secure.test"), fingerprint(t, cert1); got != want {
		t.Fatalf("served certificate %s, want %s", got, want)
	}
	master, workers := in.nginxPids()
	in.must("PUT", "/api/v1/certificates/secure", map[string]any{"name": "secure", "cert": cert2, "key": key2})
	st := in.waitSynced()
	if mode := st["lastApply"].(map[string]any)["mode"]; mode != "dynamic" {
		t.Fatalf("rotation applied as %v, want dynamic", mode)
	}
	if got, want := in.servedCert("secure.test"), fingerprint(t, cert2); got != want {
		t.Fatalf("after rotation served %s, want %s", got, want)
	}
	if m, w := in.nginxPids(); m != master || fmt.Sprint(w) != fmt.Sprint(workers) {
		t.Fatalf("rotation reloaded nginx: master %d workers %v, was %d %v", m, w, master, workers)
	}
}
