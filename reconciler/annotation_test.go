package reconciler

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

func TestParseAnnotations(t *testing.T) {
	const ng, rp = nginxPrefix, ownPrefix
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    annotations
		wantErr string
	}{
		{name: "none", in: nil, want: annotations{sslRedirect: true}},
		{name: "unrelated annotations are ignored, and unimplemented ones listed", in: map[string]string{"a/b": "c", ng + "enable-influxdb": "true"},
			want: annotations{sslRedirect: true, ignored: []string{ng + "enable-influxdb: " + whyInflux}}},
		{name: "ewma", in: map[string]string{ng + "load-balance": "ewma"}, want: annotations{loadBalance: api.EWMA, sslRedirect: true}},
		{name: "hash wins over load-balance", in: map[string]string{ng + "load-balance": "ewma", ng + "upstream-hash-by": "$request_uri"},
			want: annotations{loadBalance: api.CHash, hashBy: "$request_uri", sslRedirect: true}},
		{name: "restyplane.io wins over nginx", in: map[string]string{ng + "load-balance": "ewma", rp + "load-balance": "round_robin"},
			want: annotations{loadBalance: api.RoundRobin, sslRedirect: true}},
		{name: "affinity with the default cookie, balanced", in: map[string]string{ng + "affinity": "cookie"},
			want: annotations{affinity: &api.Affinity{Cookie: "INGRESSCOOKIE", Mode: api.AffinityBalanced}, sslRedirect: true}},
		{name: "affinity with a cookie name", in: map[string]string{rp + "affinity": "cookie", rp + "session-cookie-name": "route"},
			want: annotations{affinity: &api.Affinity{Cookie: "route", Mode: api.AffinityBalanced}, sslRedirect: true}},
		{name: "affinity with every session cookie annotation", in: map[string]string{ng + "affinity": "cookie", ng + "affinity-mode": "persistent",
			ng + "session-cookie-name": "route", ng + "session-cookie-path": "/shop", ng + "session-cookie-domain": ".Shop.example.com",
			ng + "session-cookie-samesite": "none", ng + "session-cookie-conditional-samesite-none": "true", ng + "session-cookie-expires": "172800",
			ng + "session-cookie-max-age": "3600", ng + "session-cookie-secure": "true", ng + "session-cookie-change-on-failure": "true"},
			want: annotations{affinity: &api.Affinity{Cookie: "route", Mode: api.AffinityPersistent, Path: "/shop", Domain: "shop.example.com",
				SameSite: api.SameSiteNone, ConditionalSameSiteNone: true, Expires: 172800, MaxAge: 3600, Secure: true, ChangeOnFailure: true}, sslRedirect: true}},
		{name: "conditional SameSite=None without None asks nothing", in: map[string]string{ng + "affinity": "cookie",
			ng + "session-cookie-samesite": "Lax", ng + "session-cookie-conditional-samesite-none": "true"},
			want: annotations{affinity: &api.Affinity{Cookie: "INGRESSCOOKIE", Mode: api.AffinityBalanced, SameSite: api.SameSiteLax}, sslRedirect: true}},
		{name: "session cookie annotations without affinity do nothing", in: map[string]string{ng + "session-cookie-samesite": "Sometimes"},
			want: annotations{sslRedirect: true}},
		{name: "canary by weight and header", in: map[string]string{ng + "canary": "true", ng + "canary-weight": "20", ng + "canary-by-header": "X-Canary", ng + "canary-by-header-value": "yes", ng + "canary-by-cookie": "c"},
			want: annotations{canary: &api.Canary{Weight: 20, Header: "X-Canary", HeaderValue: "yes", Cookie: "c"}, sslRedirect: true}},
		{name: "canary false is no canary", in: map[string]string{ng + "canary": "false", ng + "canary-weight": "20"}, want: annotations{sslRedirect: true}},
		{name: "rewrite and timeouts", in: map[string]string{ng + "rewrite-target": "/", ng + "proxy-read-timeout": "120", rp + "proxy-connect-timeout": "500ms", ng + "proxy-send-timeout": "30"},
			want: annotations{rewrite: "/", timeouts: &api.Timeouts{Connect: "500ms", Read: "120s", Send: "30s"}, sslRedirect: true}},
		{name: "ssl-redirect off", in: map[string]string{ng + "ssl-redirect": "false"}, want: annotations{sslRedirect: false}},

		{name: "configuration snippet", in: map[string]string{ng + "configuration-snippet": "more_set_headers x;"}, wantErr: "snippet annotations are refused (nginx.ingress.kubernetes.io/configuration-snippet: no typed equivalent: more_set_headers x (line 1): \"x\" is not \"Name: value\")"},
		{name: "server snippet under restyplane.io", in: map[string]string{rp + "server-snippet": "x"}, wantErr: "snippet annotations are refused (restyplane.io/server-snippet: no typed equivalent: line 1: directive x does not end with ';')"},
		{name: "unknown restyplane annotation", in: map[string]string{rp + "load-balancing": "ewma"}, wantErr: "restyplane.io/load-balancing (unknown restyplane.io annotation"},
		{name: "bad load-balance", in: map[string]string{ng + "load-balance": "least_conn"}, wantErr: "load-balance"},
		{name: "hash by an expression", in: map[string]string{ng + "upstream-hash-by": "$host$request_uri"}, wantErr: "upstream-hash-by"},
		{name: "affinity other than cookie", in: map[string]string{ng + "affinity": "ip"}, wantErr: "affinity"},
		{name: "affinity mode sticky", in: map[string]string{ng + "affinity": "cookie", ng + "affinity-mode": "sticky"}, wantErr: "annotation affinity-mode: \"sticky\": not balanced or persistent"},
		{name: "samesite Sometimes", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-samesite": "Sometimes"}, wantErr: "annotation session-cookie-samesite: \"Sometimes\": not Strict, Lax or None"},
		{name: "cookie path with a space", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-path": "/a b"}, wantErr: "annotation session-cookie-path"},
		{name: "cookie path with a semicolon", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-path": "/;Domain=evil.test"}, wantErr: "annotation session-cookie-path"},
		{name: "cookie path a regex", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-path": "/api(/|$)(.*)"}, wantErr: "annotation session-cookie-path"},
		{name: "cookie domain a variable", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-domain": "$host"}, wantErr: "annotation session-cookie-domain"},
		{name: "expires a duration", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-expires": "48h"}, wantErr: "annotation session-cookie-expires: \"48h\": not a number of seconds"},
		{name: "max-age negative", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-max-age": "-1"}, wantErr: "annotation session-cookie-max-age"},
		{name: "secure not a bool", in: map[string]string{ng + "affinity": "cookie", ng + "session-cookie-secure": "yes please"}, wantErr: "annotation session-cookie-secure"},
		{name: "canary weight over 100", in: map[string]string{ng + "canary": "true", ng + "canary-weight": "150"}, wantErr: "canary-weight"},
		{name: "header value without header", in: map[string]string{ng + "canary": "true", ng + "canary-by-header-value": "x"}, wantErr: "needs canary-by-header"},
		{name: "rewrite with a capture group", in: map[string]string{ng + "rewrite-target": "/$2"},
			want: annotations{rewrite: "/$2", rewriteCaptures: true, sslRedirect: true}},
		{name: "rewrite not a path", in: map[string]string{ng + "rewrite-target": "/a b"}, wantErr: "rewrite-target"},
		{name: "timeout injection", in: map[string]string{ng + "proxy-read-timeout": "60s; return 200"}, wantErr: "proxy-read-timeout"},
		{name: "ssl-redirect not a bool", in: map[string]string{ng + "ssl-redirect": "sometimes"}, wantErr: "ssl-redirect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAnnotations(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error = %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(annotations{}, authAnnotations{}, httpAnnotations{}, proxyAnnotations{}, upstreamAnnotations{})); diff != "" {
				t.Fatalf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnippetErrorIsMarked(t *testing.T) {
	_, err := parseAnnotations(map[string]string{nginxPrefix + "auth-snippet": "x"})
	if got, want := errors.Is(err, errSnippet), true; got != want {
		t.Fatalf("errors.Is(%v, errSnippet) = %t, want %t", err, got, want)
	}
}
