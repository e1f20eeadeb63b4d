package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOneObjectNeverFreezesTheProxy runs restyplane as `make run` does: its data directory
// as the store makes it (0700), nothing opened by hand, nginx's workers running as nobody
// when the tests run as root. A basic-auth location, an external auth whose host does not
// resolve, a TLS server whose certificate's key belongs to another certificate, and an
// endpoint change after them each apply; the unresolvable auth fails closed for its own
// location alone, the TLS server is left out and reported; and after restyplane and
// nginx both restart, every host serves what it served before.
func TestOneObjectNeverFreezesTheProxy(t *testing.T) {
	up := newUpstream(t, "web", 200, 0)
	in := start(t)
	loc := func(path string, auth map[string]any) map[string]any {
		l := map[string]any{"path": path, "backend": "web"}
		if auth != nil {
			l["auth"] = auth
		}
		return l
	}
	srv := func(name string, locs ...any) map[string]any {
		return map[string]any{"name": name, "hostnames": []string{name + ".test"}, "locations": locs}
	}
	in.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{up.endpoint(1)}})
	in.must("POST", "/api/v1/servers", srv("open", loc("/", nil)))
	in.must("POST", "/api/v1/htpasswds", map[string]any{"name": "admins", "content": htpasswdLines()})
	in.must("POST", "/api/v1/servers", srv("basic", loc("/", map[string]any{"basic": map[string]any{"htpasswd": "admins"}})))
	in.must("POST", "/api/v1/servers", srv("lost", loc("/", nil),
		loc("/ext", map[string]any{"external": map[string]any{"url": "http://auth.restyplane-test.invalid/verify"}})))
	cert, _ := selfSigned(t, "tls.test", 1)
	_, otherKey := selfSigned(t, "tls.test", 2)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "mismatched", "cert": cert, "key": otherKey})
	tlsSrv := srv("tls", loc("/", nil))
	tlsSrv["tls"] = map[string]any{"certificate": "mismatched"}
	in.must("POST", "/api/v1/servers", tlsSrv)
	in.must("PUT", "/api/v1/backends/web", map[string]any{"name": "web", "endpoints": []any{up.endpoint(3)}})

	check := func(when string) {
		t.Helper()
		st := in.waitSynced()
		if st["applied"] != st["head"] {
			t.Fatalf("%s: applied %v, head %v: %v", when, st["applied"], st["head"], st["lastApply"])
		}
		last, _ := st["lastApply"].(map[string]any)
		if skipped := fmt.Sprint(last["skipped"]); !strings.Contains(skipped, "name:tls") || !strings.Contains(skipped, "key values mismatch") {
			t.Errorf("%s: the last apply's skipped objects %s do not name server tls with nginx's reason", when, skipped)
		}
		for _, c := range []struct {
			host, path string
			hdr        []string
			want       int
		}{
			{"open.test", "/", nil, 200},
			{"basic.test", "/", nil, 401},
			{"basic.test", "/", []string{"Authorization", basic("sha", "secret")}, 200},
			{"lost.test", "/", nil, 200},
			{"lost.test", "/ext/x", nil, 500}, // fails closed: never the upstream
		} {
			code, body := waitCode(in, c.host, c.path, c.want, c.hdr...)
			if code != c.want {
				t.Errorf("%s: %s%s = %d %q, want %d", when, c.host, c.path, code, body, c.want)
			}
		}
	}
	check("live")

	in.Stop() // stops nginx too: both start afresh on the same data directory
	in = &instance{Process: in.Restart(t), t: t}
	check("after a restart")
}

// waitCode asks until host's path answers want, for at most 5 seconds, and returns the
// last answer.
func waitCode(in *instance, host, path string, want int, hdr ...string) (int, string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := in.get(host, path, hdr...)
		if code == want || time.Now().After(deadline) {
			return code, fmt.Sprint(body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
