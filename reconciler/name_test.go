package reconciler

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

func TestNames(t *testing.T) {
	long := strings.Repeat("a", 63)
	for _, tc := range []struct{ got, want string }{
		{backendName("shop", "web", "80"), "k8s.shop.web.80"},
		{backendName("shop", "web", "http"), "k8s.shop.web.http"},
		{serverName("shop.example.com"), "k8s.shop.example.com"},
		{serverName("*.example.com"), "k8s._.example.com"},
		{serverName(api.CatchAllHostname), "k8s._default"},
		{certificateName("shop", "tls.v2"), "k8s.shop.tls.v2"},
	} {
		if tc.got != tc.want {
			t.Errorf("name = %q, want %q", tc.got, tc.want)
		}
	}
	names := []string{backendName(long, long, "http"), backendName(long, long, "https"), serverName(strings.Repeat(long+".", 3) + "com"),
		certificateName(long, strings.Repeat("b.", 100)+"c")}
	seen := map[string]bool{}
	for _, n := range names {
		if err := api.ValidName("name", n); err != nil {
			t.Errorf("name %q: %v", n, err)
		}
		if seen[n] {
			t.Errorf("name %q given twice", n)
		}
		seen[n] = true
	}
	if got, want := backendName(long, long, "http"), backendName(long, long, "http"); got != want {
		t.Fatalf("a long name changed between calls: %q, %q", got, want)
	}
}
