package reconciler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const testHash = "$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/"

func TestParseAuthAnnotations(t *testing.T) {
	ng := nginxPrefix
	for _, tc := range []struct {
		name    string
		in      map[string]string
		wantErr string
	}{
		{name: "basic", in: map[string]string{ng + "auth-type": "basic", ng + "auth-secret": "users", ng + "auth-realm": "staff"}},
		{name: "digest", in: map[string]string{ng + "auth-type": "digest", ng + "auth-secret": "users"}, wantErr: "only basic"},
		{name: "secret without type", in: map[string]string{ng + "auth-secret": "users"}, wantErr: "needs auth-type"},
		{name: "type without secret", in: map[string]string{ng + "auth-type": "basic"}, wantErr: "needs auth-secret"},
		{name: "bad secret type", in: map[string]string{ng + "auth-type": "basic", ng + "auth-secret": "u", ng + "auth-secret-type": "ldap"}, wantErr: "auth-secret-type"},
		{name: "realm with a quote", in: map[string]string{ng + "auth-type": "basic", ng + "auth-secret": "u", ng + "auth-realm": `a"b`}, wantErr: "realm"},
		{name: "external", in: map[string]string{ng + "auth-url": "http://auth.svc:8080/verify", ng + "auth-response-headers": "X-User, X-Email", ng + "auth-signin": "https://login.test/start?x=1"}},
		{name: "url whose host is a variable", in: map[string]string{ng + "auth-url": "http://$host/oauth2/auth"}, wantErr: "host may not be a variable"},
		{name: "url with a query", in: map[string]string{ng + "auth-url": "http://auth/verify?code=200"}},
		{name: "url with listed variables", in: map[string]string{ng + "auth-url": "http://auth/verify?rd=$escaped_request_uri&h=$host&s=$scheme"}},
		{name: "url with another variable", in: map[string]string{ng + "auth-url": "http://auth/verify?u=$remote_user"}, wantErr: "$remote_user is not a variable"},
		{name: "oauth2-proxy's signin", in: map[string]string{ng + "auth-url": "http://auth/v", ng + "auth-signin": "https://$host/oauth2/start?rd=$escaped_request_uri"}},
		{name: "signin with the original URL", in: map[string]string{ng + "auth-url": "http://auth/v", ng + "auth-signin": "https://auth.test/?rd=$scheme://$http_host$request_uri"}},
		{name: "signin with another variable", in: map[string]string{ng + "auth-url": "http://auth/v", ng + "auth-signin": "https://$host/start?rd=$arg_next"}, wantErr: "$arg_next is not a variable"},
		{name: "url on loopback", in: map[string]string{ng + "auth-url": "http://127.0.0.1:9180/api/v1/whoami"}, wantErr: "is this machine"},
		{name: "url on localhost", in: map[string]string{ng + "auth-url": "http://localhost/verify"}, wantErr: "names this machine"},
		{name: "url on the metadata service", in: map[string]string{ng + "auth-url": "http://169.254.169.254/latest"}, wantErr: "link-local"},
		{name: "signin alone", in: map[string]string{ng + "auth-signin": "https://login.test/"}, wantErr: "needs auth-url"},
		{name: "bad method", in: map[string]string{ng + "auth-url": "http://auth/v", ng + "auth-method": "GET;"}, wantErr: "method"},
		{name: "cache key", in: map[string]string{ng + "auth-url": "http://auth/v", ng + "auth-cache-key": "$remote_user"}, wantErr: "auth-cache-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseAnnotations(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || a.auth == nil {
				t.Fatalf("auth = %+v, error = %v", a.auth, err)
			}
		})
	}
}

func authIngress(ns, secret string, extra map[string]string) *networkingv1.Ingress {
	ann := map[string]string{nginxPrefix + "auth-type": "basic", nginxPrefix + "auth-secret": secret}
	for k, v := range extra {
		ann[k] = v
	}
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Annotations: ann}}
}

func TestPlanAuthReadsOnlyOwnNamespaceSecrets(t *testing.T) {
	snap := NewSnapshot()
	snap.Secrets["team-a/users"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "users", UID: "u1"},
		Data: map[string][]byte{"auth": []byte("alice:" + testHash + "\n")}}
	snap.Secrets["team-a/map"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "map", UID: "u2"},
		Data: map[string][]byte{"bob": []byte(testHash), "alice": []byte(testHash)}}
	snap.Secrets["team-a/bad"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "bad"},
		Data: map[string][]byte{"auth": []byte("alice:plaintext\n")}}
	for _, tc := range []struct {
		name, ns, secret string
		extra            map[string]string
		wantUsers        string
		wantErr          string
	}{
		{name: "own namespace by name", ns: "team-a", secret: "users", wantUsers: "alice"},
		{name: "own namespace by key", ns: "team-a", secret: "team-a/users", wantUsers: "alice"},
		{name: "auth-map", ns: "team-a", secret: "map", extra: map[string]string{nginxPrefix + "auth-secret-type": "auth-map"}, wantUsers: "alice,bob"},
		{name: "another namespace", ns: "team-b", secret: "team-a/users", wantErr: "another namespace"},
		{name: "missing", ns: "team-a", secret: "nope", wantErr: "not found"},
		{name: "not a hash", ns: "team-a", secret: "bad", wantErr: "password hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := authIngress(tc.ns, tc.secret, tc.extra)
			ann, err := parseAnnotations(ing.Annotations)
			if err != nil {
				t.Fatal(err)
			}
			p := &plan{ing: ing, ann: ann}
			err = p.planAuth(snap)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := p.htpasswds[p.ann.auth.Basic.Htpasswd]
			if h == nil || strings.Join(h.Users, ",") != tc.wantUsers || h.Source.Namespace != "team-a" {
				t.Fatalf("htpasswd = %+v, want users %s from team-a", h, tc.wantUsers)
			}
		})
	}
}
