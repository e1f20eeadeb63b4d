package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

func TestParseWAFAnnotations(t *testing.T) {
	ng := nginxPrefix
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    *api.WAF
		wantErr string
	}{
		{name: "none", in: map[string]string{}, want: nil},
		{name: "switched off", in: map[string]string{ng + "enable-modsecurity": "false"}, want: nil},
		{name: "enabled detects", in: map[string]string{ng + "enable-modsecurity": "true"}, want: &api.WAF{Mode: api.WAFDetect}},
		{name: "core rules", in: map[string]string{ng + "enable-modsecurity": "true", ng + "enable-owasp-core-rules": "true",
			ng + "modsecurity-transaction-id": "$request_id"},
			want: &api.WAF{Mode: api.WAFDetect, CoreRules: true, ParanoiaLevel: 1, TransactionID: api.WAFIDRequest}},
		{name: "core rules alone inspect", in: map[string]string{ng + "enable-owasp-core-rules": "true"},
			want: &api.WAF{Mode: api.WAFDetect, CoreRules: true, ParanoiaLevel: 1}},
		{name: "snippet blocks and excludes", in: map[string]string{ng + "enable-modsecurity": "true", ng + "enable-owasp-core-rules": "true",
			ng + "modsecurity-snippet": "# tuned\nSecRuleEngine On\nSecRequestBodyAccess On\nSecRuleRemoveById 942100 920350\n"},
			want: &api.WAF{Mode: api.WAFBlock, CoreRules: true, ParanoiaLevel: 1, ExcludeRules: []int{920350, 942100}}},
		{name: "snippet turns it off", in: map[string]string{ng + "enable-modsecurity": "true", ng + "modsecurity-snippet": "SecRuleEngine Off"},
			want: &api.WAF{Mode: api.WAFOff}},
		{name: "snippet with a rule", in: map[string]string{ng + "enable-modsecurity": "true",
			ng + "modsecurity-snippet": "SecRuleEngine On\nSecRule ARGS \"@rx x\" \"id:1,deny\""}, wantErr: "directive SecRule has no typed equivalent"},
		{name: "snippet with an include", in: map[string]string{ng + "enable-modsecurity": "true",
			ng + "modsecurity-snippet": "Include /etc/passwd"}, wantErr: "directive Include"},
		{name: "snippet with an audit log", in: map[string]string{ng + "enable-modsecurity": "true",
			ng + "modsecurity-snippet": "SecRuleEngine On\nSecAuditLog /dev/stdout"}, wantErr: "directive SecAuditLog"},
		{name: "rule range", in: map[string]string{ng + "enable-modsecurity": "true", ng + "modsecurity-snippet": "SecRuleRemoveById 900000-900100"},
			wantErr: "SecRuleRemoveById"},
		{name: "unknown engine", in: map[string]string{ng + "enable-modsecurity": "true", ng + "modsecurity-snippet": "SecRuleEngine Maybe"},
			wantErr: "SecRuleEngine"},
		{name: "transaction id of nginx text", in: map[string]string{ng + "enable-modsecurity": "true", ng + "modsecurity-transaction-id": "$host-$uri"},
			wantErr: "modsecurity-transaction-id"},
		{name: "not a bool", in: map[string]string{ng + "enable-modsecurity": "yes"}, wantErr: "enable-modsecurity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAnnotations(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !cmp.Equal(a.waf, tc.want) {
				t.Fatalf("waf = %+v, error %v; want %+v", a.waf, err, tc.want)
			}
		})
	}
}

// TestTranslateWAF: the WAF annotations become the policy of every location of the
// Ingress, the fallback of its default backend too, and no other Ingress's.
func TestTranslateWAF(t *testing.T) {
	const ns = "shop"
	web := kubetest.Service(ns, "web", 80)
	slice := kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.0.0.1")...)
	path := func(h, p string) kubetest.Path { return kubetest.Path{Host: h, Path: p, Service: "web", Port: 80} }
	guarded := aged(kubetest.Ingress(ns, "guarded", "c", path("shop.example.com", "/"), path("shop.example.com", "/api")), 0,
		nginxPrefix+"enable-modsecurity", "true", nginxPrefix+"enable-owasp-core-rules", "true",
		nginxPrefix+"modsecurity-snippet", "SecRuleEngine On\nSecRuleRemoveById 920350")
	open := aged(kubetest.Ingress(ns, "open", "c", path("shop.example.com", "/open")), 1)
	tr := Translate(snapshotOf(runtime.Object(web), slice, guarded, open), nil)

	srv := tr.Servers[serverName("shop.example.com")]
	if srv == nil || len(srv.Locations) != 3 {
		t.Fatalf("server = %+v, want three locations", srv)
	}
	want := &api.WAF{Mode: api.WAFBlock, CoreRules: true, ParanoiaLevel: 1, ExcludeRules: []int{920350}}
	for _, l := range srv.Locations {
		if l.Path == "/open" {
			if l.WAF != nil {
				t.Errorf("another Ingress's location has the WAF: %+v", l.WAF)
			}
			continue
		}
		if !cmp.Equal(l.WAF, want) {
			t.Errorf("location %s: waf %+v, want %+v", l.Path, l.WAF, want)
		}
	}
	if got := summarize(tr).Reports[ns+"/guarded"]; !strings.HasPrefix(got, "applied") {
		t.Fatalf("guarded: %q", got)
	}
}
