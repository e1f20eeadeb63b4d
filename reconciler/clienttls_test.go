package reconciler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

func TestParseClientTLSAnnotations(t *testing.T) {
	ng := nginxPrefix
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    api.ClientTLS
		wantErr string
	}{
		{name: "defaults", in: map[string]string{ng + "auth-tls-secret": "ns/ca"}, want: api.ClientTLS{Verify: "on", Depth: 1}},
		{name: "every annotation", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-verify-client": "optional_no_ca",
			ng + "auth-tls-verify-depth": "3", ng + "auth-tls-error-page": "https://x.test/cert", ng + "auth-tls-pass-certificate-to-upstream": "true"},
			want: api.ClientTLS{Verify: "optional_no_ca", Depth: 3, ErrorPage: "https://x.test/cert", PassCertificateToUpstream: true}},
		{name: "restyplane.io wins", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-verify-client": "on", ownPrefix + "auth-tls-verify-client": "optional"},
			want: api.ClientTLS{Verify: "optional", Depth: 1}},
		{name: "verify without a secret", in: map[string]string{ng + "auth-tls-verify-client": "on"}, wantErr: "needs auth-tls-secret"},
		{name: "unknown mode", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-verify-client": "require"}, wantErr: "verify"},
		{name: "depth zero", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-verify-depth": "0"}, wantErr: "auth-tls-verify-depth"},
		{name: "depth too deep", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-verify-depth": "11"}, wantErr: "depth"},
		{name: "error page with a variable", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-error-page": "https://$host/x"}, wantErr: "errorPage"},
		{name: "pass not a bool", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-pass-certificate-to-upstream": "yes please"}, wantErr: "pass-certificate"},
		{name: "secret with a space", in: map[string]string{ng + "auth-tls-secret": "my ca"}, wantErr: "auth-tls-secret"},
		{name: "match-cn stays refused", in: map[string]string{ng + "auth-tls-secret": "ca", ng + "auth-tls-match-cn": "CN=a"}, wantErr: "auth-tls-match-cn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAnnotations(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || a.clientTLS == nil || *a.clientTLS != tc.want {
				t.Fatalf("clientTLS = %+v, error %v; want %+v", a.clientTLS, err, tc.want)
			}
		})
	}
}

// TestTranslateClientTLS: the CA Secret becomes the caCertificate the host's server names;
// a younger Ingress on the host that asks otherwise is refused there; a host without a TLS
// entry is served as ingress-nginx serves it, with the default certificate, plain HTTP
// redirected, unless ssl-redirect false would leave plain HTTP without the certificate:
// then the Ingress is refused whole.
func TestTranslateClientTLS(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	web := kubetest.Service(ns, "web", 80)
	slice := kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.0.0.1")...)
	cert, key := kubetest.SelfSigned(t, host, "bare.example.com")
	caSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "clients", UID: "ca-1"},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"ca.crt": []byte(testCAPEM(t, true))}}
	path := func(h, p string) kubetest.Path { return kubetest.Path{Host: h, Path: p, Service: "web", Port: 80} }
	strict := aged(withTLS(kubetest.Ingress(ns, "strict", "c", path(host, "/")), "tls", host), 0,
		nginxPrefix+"auth-tls-secret", "clients", nginxPrefix+"auth-tls-verify-client", "optional")
	same := aged(kubetest.Ingress(ns, "same", "c", path(host, "/same")), 1,
		nginxPrefix+"auth-tls-secret", "clients", nginxPrefix+"auth-tls-verify-client", "optional")
	withTLS(same, "tls", host)
	sneaky := aged(kubetest.Ingress(ns, "sneaky", "c", path(host, "/sneaky")), 2)
	bare := aged(kubetest.Ingress(ns, "bare", "c", path("bare.example.com", "/")), 3, nginxPrefix+"auth-tls-secret", "clients")
	plain := aged(kubetest.Ingress(ns, "plain", "c", path("plain.example.com", "/")), 4, nginxPrefix+"auth-tls-secret", "clients",
		nginxPrefix+"ssl-redirect", "false")
	tr := Translate(snapshotOf(runtime.Object(web), slice, kubetest.TLSSecret(ns, "tls", cert, key), caSecret, strict, same, sneaky, bare, plain), nil)

	srv := tr.Servers[serverName(host)]
	if srv == nil || srv.ClientTLS == nil {
		t.Fatalf("server for %s = %+v, want clientTLS", host, srv)
	}
	ca := tr.CACertificates[srv.ClientTLS.CACertificate]
	if ca == nil || ca.Source.Namespace != ns || ca.Source.Name != "clients" || srv.ClientTLS.Verify != api.VerifyOptional {
		t.Fatalf("clientTLS %+v, its CA %+v", srv.ClientTLS, ca)
	}
	var paths []string
	for _, l := range srv.Locations {
		paths = append(paths, l.Path)
	}
	if got := strings.Join(paths, " "); got != "/ /same" {
		t.Fatalf("locations %q, want / and /same (not /sneaky)", got)
	}
	reports := summarize(tr).Reports
	if got := reports[ns+"/sneaky"]; got != "not applied Conflict" {
		t.Fatalf("sneaky: %q", got)
	}
	if p := tr.Reports[ns+"/sneaky"].Problems; len(p) == 0 || !strings.Contains(p[0].Message, "client certificates") {
		t.Fatalf("sneaky's problems: %+v", p)
	}
	if got := reports[ns+"/bare"]; got != "applied Degraded" {
		t.Fatalf("bare (no TLS entry): %q, want applied with a warning", got)
	}
	if p := tr.Reports[ns+"/bare"].Problems; len(p) != 1 || !strings.Contains(p[0].Message, "default certificate") {
		t.Fatalf("bare's problems: %+v, want the default certificate named", p)
	}
	if b := tr.Servers[serverName("bare.example.com")]; b == nil || b.TLS == nil || !b.TLS.Redirect || b.ClientTLS == nil || b.ClientTLS.Verify != api.VerifyOn {
		t.Fatalf("bare's server %+v, want TLS with the redirect and client verification", b)
	}
	if got := reports[ns+"/plain"]; !strings.HasPrefix(got, "not applied") {
		t.Fatalf("plain (no TLS entry, ssl-redirect false): %q, want refused", got)
	}
	if p := tr.Reports[ns+"/plain"].Problems; len(p) == 0 || !strings.Contains(p[0].Message, "ssl-redirect false would serve it over plain HTTP") {
		t.Fatalf("plain's problems: %+v", p)
	}
	if !Held(tr.Servers[serverName("plain.example.com")]) {
		t.Fatalf("the host without TLS and with ssl-redirect false is served")
	}
}
