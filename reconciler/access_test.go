package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

func TestAccessAndLimitAnnotations(t *testing.T) {
	const n = "nginx.ingress.kubernetes.io/"
	a, err := parseAnnotations(map[string]string{
		n + "whitelist-source-range":           "10.0.0.0/8, 192.168.1.7",
		"restyplane.io/allowlist-source-range": "2001:db8::/32,10.0.0.0/8",
		n + "denylist-source-range":            "10.0.0.66",
		n + "limit-rps":                        "10",
		n + "limit-connections":                "3",
		n + "limit-burst-multiplier":           "2",
		n + "limit-allowlist":                  "127.0.0.1",
		n + "limit-rate":                       "100",
		n + "limit-rate-after":                 "1024",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &api.AccessPolicy{Allow: []string{"10.0.0.0/8", "192.168.1.7/32", "2001:db8::/32"}, Deny: []string{"10.0.0.66/32"}}
	if diff := cmp.Diff(want, a.access); diff != "" {
		t.Errorf("access (-want +got):\n%s", diff)
	}
	wantL := &api.LocationLimits{RPS: 10, Connections: 3, BurstMultiplier: 2, Exempt: []string{"127.0.0.1/32"},
		Status: 503, Rate: "100k", RateAfter: "1024k"}
	if diff := cmp.Diff(wantL, a.limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	// Bad values are refused with the annotation's name and why.
	for ann, val := range map[string]string{
		"whitelist-source-range": "10.0.0.1/8", "denylist-source-range": "10.0.0.0/8;allow all",
		"limit-rps": "-1", "limit-rpm": "ten", "limit-connections": "1.5", "limit-burst-multiplier": "5000",
		"limit-allowlist": "nope", "limit-rate": "1m", "allowlist-source-range": "fe80::1%eth0",
	} {
		anns := map[string]string{n + ann: val}
		if ann == "limit-burst-multiplier" || ann == "limit-allowlist" {
			anns[n+"limit-rps"] = "1"
		}
		_, err := parseAnnotations(anns)
		if err == nil || !(strings.Contains(err.Error(), ann) || strings.Contains(err.Error(), "limit annotations")) {
			t.Errorf("%s: %q gave %v, want an error naming it", ann, val, err)
		}
	}
	// A multiplier with no rate to apply to is reported ignored, not dropped silently.
	a, err = parseAnnotations(map[string]string{n + "limit-burst-multiplier": "3"})
	if err != nil || a.limits != nil || len(a.ignored) != 1 || !strings.Contains(a.ignored[0], "limit-burst-multiplier") {
		t.Errorf("a lone multiplier: %v %+v %v", err, a.limits, a.ignored)
	}
}
