package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A dry run says which way a write would apply and whether nginx accepts the result,
// and stores nothing.
func TestDryRunSaysModeAndNginxVerdict(t *testing.T) {
	in := start(t)
	a := newUpstream(t, "a", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	head := in.waitSynced()["head"]

	dyn := in.must("PUT", "/api/v1/backends/web/endpoints?dryRun=true", map[string]any{"endpoints": []any{a.endpoint(5)}})
	if dyn["mode"] != "dynamic" || dyn["validation"] != "ok" || dyn["dryRun"] != true {
		t.Fatalf("dry run of an endpoint change = mode %v, validation %v, dryRun %v; want dynamic, ok, true", dyn["mode"], dyn["validation"], dyn["dryRun"])
	}
	rel := in.must("PUT", "/api/v1/servers/shop?dryRun=true", server("shop", "shop.test", location("/", "web"), location("/api", "web")))
	if rel["mode"] != "reload" || rel["validation"] != "ok" {
		t.Fatalf("dry run of a new location = mode %v, validation %v; want reload, ok", rel["mode"], rel["validation"])
	}

	if got := in.status()["head"]; got != head {
		t.Fatalf("dry runs moved the head from %v to %v", head, got)
	}
	in.must("PUT", "/api/v1/backends/web/endpoints", map[string]any{"endpoints": []any{a.endpoint(5)}})
	in.waitSynced()

	// A certificate whose key belongs to another one is stored (the API says keyMatches
	// false) but nginx would refuse any server that presents it.
	cert, _ := selfSigned(t, "secure.test", 1)
	_, otherKey := selfSigned(t, "secure.test", 2)
	res := in.must("POST", "/api/v1/certificates", map[string]any{"name": "secure", "cert": cert, "key": otherKey})
	head = res["revision"].(map[string]any)["id"]
	srv := server("secure", "secure.test", location("/", "web"))
	srv["tls"] = map[string]any{"certificate": "secure"}
	bad := in.must("POST", "/api/v1/servers?dryRun=true", srv)
	if bad["mode"] != "reload" || !strings.Contains(bad["validation"].(string), "nginx") {
		t.Fatalf("dry run of a server with a mismatched key = mode %v, validation %q; want reload with nginx's message", bad["mode"], bad["validation"])
	}
	t.Logf("dry run validation: %s", bad["validation"])
	if got := in.status()["head"]; got != head {
		t.Fatalf("dry runs moved the head from %v to %v", head, got)
	}

	// The applies are in the metrics, and so are nginx's connections.
	resp, err := http.Get(in.API + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`restyplane_applies_total{mode="reload",outcome="success"}`, `restyplane_applies_total{mode="dynamic"`,
		"restyplane_propagation_seconds_count", "restyplane_applied_revision", `restyplane_nginx_connections{state="active"}`,
		"restyplane_last_apply_success_timestamp_seconds", "restyplane_apply_duration_seconds_bucket"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
