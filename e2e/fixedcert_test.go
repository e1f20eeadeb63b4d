package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFixedCertificateBringsItsServerBack: a TLS server whose certificate nginx refuses is
// left out; once the certificate is fixed in place (the same name, a key that matches),
// the next apply serves the server again, although the server itself did not change.
// Before, the applier remembered the server's version as refused and kept leaving it out.
func TestFixedCertificateBringsItsServerBack(t *testing.T) {
	up := newUpstream(t, "web", 200, 0)
	in := start(t)
	in.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{up.endpoint(1)}})
	cert, key := selfSigned(t, "tls.test", 1)
	_, otherKey := selfSigned(t, "tls.test", 2)
	in.must("POST", "/api/v1/certificates", map[string]any{"name": "shop-tls", "cert": cert, "key": otherKey})
	in.must("POST", "/api/v1/servers", map[string]any{"name": "tls", "hostnames": []string{"tls.test"},
		"locations": []any{map[string]any{"path": "/", "backend": "web"}}, "tls": map[string]any{"certificate": "shop-tls"}})
	skipped := func() string {
		st := in.waitSynced()
		last, _ := st["lastApply"].(map[string]any)
		return fmt.Sprint(last["skipped"])
	}
	if s := skipped(); !strings.Contains(s, "name:tls") {
		t.Fatalf("the server of a mismatched certificate is not left out: skipped %s", s)
	}

	in.must("PUT", "/api/v1/certificates/shop-tls", map[string]any{"name": "shop-tls", "cert": cert, "key": key})
	deadline := time.Now().Add(10 * time.Second)
	for s := skipped(); strings.Contains(s, "name:tls"); s = skipped() {
		if time.Now().After(deadline) {
			t.Fatalf("10s after its certificate was fixed, server tls is still left out: %s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
