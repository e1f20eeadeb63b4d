package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestParseSnippet: the tokenizer reads statements, blocks, quotes and escapes as nginx's
// does, expands nothing, and refuses what nginx would read differently or not at all.
func TestParseSnippet(t *testing.T) {
	got, err := parseSnippet("# headers\n  more_set_headers \"X-A: a b;c\" 'X-B: \\'q\\'';\nadd_header X-C \"v\\\\w\\x\" always; # trailing\n" +
		"location ~ ^/(metrics|ready)$ {\n return 403;\n}\nproxy_set_header X-D $host;")
	if err != nil {
		t.Fatal(err)
	}
	want := []directive{
		{name: "more_set_headers", args: []string{"X-A: a b;c", "X-B: 'q'"}, line: 2},
		{name: "add_header", args: []string{"X-C", `v\w\x`, "always"}, line: 3},
		{name: "location", args: []string{"~", "^/(metrics|ready)$"}, line: 4, block: []directive{{name: "return", args: []string{"403"}, line: 5}}},
		{name: "proxy_set_header", args: []string{"X-D", "$host"}, line: 7},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(directive{})); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
	for in, why := range map[string]string{
		`more_set_headers "X: y`:                     "not closed",
		`add_header X "y"z;`:                         "followed by",
		"location / { return 403;":                   "not closed with '}'",
		"return 403; }":                              "unexpected '}'",
		"add_header X y":                             "does not end with ';'",
		"; deny all;":                                "no directive name",
		"add_header X ${host};":                      "braced variable",
		"if ($a) { location / { location /x { } } }": "deeper",
		"access_by_lua_block { ngx.say('}') }":       "directive access_by_lua_block is refused: it runs Lua",
		"lua_need_request_body on;":                  "directive lua_need_request_body is refused",
		"include /etc/nginx/snippets/x.conf;":        "directive include is refused: it reads a file",
		"load_module /tmp/evil.so;":                  "directive load_module is refused: it loads a shared library",
		strings.Repeat("deny all;", 201):             "more than 200",
	} {
		if _, err := parseSnippet(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("parseSnippet(%q) = %v, want an error containing %q", in, err, why)
		}
	}
}

// TestTranslateSnippet: the snippets of real Ingresses become typed fields, directive by
// directive, and a directive without a typed equivalent refuses the snippet, named.
func TestTranslateSnippet(t *testing.T) {
	f, err := translateSnippet("configuration-snippet", `
		more_set_headers "X-Frame-Options: DENY";
		more_set_headers "Strict-Transport-Security: max-age=15552000; includeSubDomains";
		add_header X-Team checkout;
		proxy_set_header X-Forwarded-Proto $scheme;
		proxy_set_header X-Client edge;
		proxy_hide_header X-Powered-By;
		proxy_cache cache;
		proxy_cache_valid 200 302 10m;
		proxy_cache_valid any 1m;
		proxy_cache_key "$scheme$request_method$host$request_uri";
		proxy_cache_use_stale error timeout updating;
		proxy_cache_lock on;
		proxy_cache_bypass $http_authorization;
		add_header X-Cache-Status $upstream_cache_status;
		proxy_buffer_size 16k;
		client_body_buffer_size 1m;
		server_tokens off;`)
	if err != nil {
		t.Fatal(err)
	}
	l := api.Location{Path: "/", Backend: "web"}
	f.apply(&l)
	want := api.Location{Path: "/", Backend: "web",
		RequestHeaders:  &api.HeaderFilter{Set: []api.Header{{Name: "X-Client", Value: "edge"}}},
		ResponseHeaders: &api.HeaderFilter{Set: []api.Header{{Name: "X-Frame-Options", Value: "DENY"}, {Name: "Strict-Transport-Security", Value: "max-age=15552000; includeSubDomains"}}, Add: []api.Header{{Name: "X-Team", Value: "checkout"}}, Remove: []string{"X-Powered-By"}},
		Cache: &api.CachePolicy{Key: []string{"$scheme", "$request_method", "$host", "$request_uri"},
			Valid:    []api.CacheValid{{Codes: []int{200, 302}, Duration: "10m"}, {Duration: "1m"}},
			UseStale: []string{"error", "timeout", "updating"}, Lock: true, Bypass: []string{"$http_authorization"}, StatusHeader: "X-Cache-Status"},
		Proxy: &api.ProxyPolicy{BufferSize: "16k", ClientBodyBufferSize: "1m"}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("location (-want +got):\n%s", diff)
	}
	if len(f.became) != 17 || !strings.Contains(strings.Join(f.became, "\n"), "proxy_set_header X-Forwarded-Proto $scheme → nothing: restyplane sends X-Forwarded-Proto itself, as settings' useForwardedHeaders says") {
		t.Errorf("became:\n%s", strings.Join(f.became, "\n"))
	}

	f, err = translateSnippet("server-snippet", "location ~ ^/(metrics|ready)$ { return 403; }\nlocation = /old { return 301 https://new.example.com/; }\nlocation /internal { deny all; }")
	if err != nil {
		t.Fatal(err)
	}
	wantLocs := []api.Location{
		{Path: "^/(metrics|ready)$", Match: api.MatchRegex, Return: &api.Return{Code: 403}},
		{Path: "/old", Match: api.MatchExact, Redirect: &api.Redirect{URL: "https://new.example.com/", Code: 301}},
		{Path: "/internal", Match: api.MatchPrefix, Deny: true},
	}
	if diff := cmp.Diff(wantLocs, f.locations); diff != "" {
		t.Errorf("server-snippet locations (-want +got):\n%s", diff)
	}

	for in, why := range map[string]string{
		`more_set_headers "X-Session: $cookie_session";`:    "names $cookie_session, which is not one of the variables a header may carry",
		"proxy_set_header X-Token $arg_token;":              "names $arg_token, which is not one",
		"add_header X-Who $remote_user;":                    "names $remote_user",
		"proxy_set_header X-A $host$hostx;":                 "names $hostx",
		"proxy_set_header X-A ${host};":                     "braced variable",
		"lua_need_request_body on;":                         "directive lua_need_request_body is refused",
		"include /etc/nginx/snippets/headers.conf;":         "directive include is refused",
		"if ($host = x) { return 403; }":                    "its condition is nginx variables",
		"set $a 1;":                                         "has no typed equivalent",
		"proxy_pass http://evil;":                           "the backend is the Ingress's Service",
		"frobnicate on;":                                    "frobnicate on (line 1): unknown directive",
		"location /x { return 403; }":                       "a location inside a location",
		"add_header X-Cache-Status $upstream_cache_status;": "caches nothing",
		"proxy_cache_key $remote_addr$request_uri;":         "$remote_addr is not one of",
		"proxy_cache c; proxy_cache_bypass $remote_addr;":   "must be $http_",
		"return 301 https://$host$request_uri;":             "holds a variable",
		"deny 10.0.0.0/8;":                                  "only deny all",
		"rewrite ^/old/(.*)$ /new/$1 permanent;":            "some paths only",
		"server_tokens on;":                                 "only off",
		"more_set_headers \"X-A: b\\\"c\";":                 "not valid",
		"expires 30x;":                                      "not valid",
		"large_client_header_buffers 4 16k;":                "not typed yet",
	} {
		if _, err := translateSnippet("configuration-snippet", in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("translateSnippet(%q) = %v, want an error containing %q", in, err, why)
		}
	}
	// Header values may name the variables of api.HeaderVariables, as the corpus's
	// snippets do: ingress-nginx's $req_id and the client certificate's.
	f, err = translateSnippet("configuration-snippet", `more_set_headers "Request-Id: $req_id";
		proxy_set_header X-Client-Cert-Fingerprint $ssl_client_fingerprint;
		proxy_set_header X-Client-Cert-DN $ssl_client_s_dn;
		add_header X-Served-By "restyplane $host";`)
	if err != nil {
		t.Fatal(err)
	}
	l = api.Location{Path: "/", Backend: "web"}
	f.apply(&l)
	want = api.Location{Path: "/", Backend: "web",
		RequestHeaders: &api.HeaderFilter{Set: []api.Header{{Name: "X-Client-Cert-Fingerprint", Value: "$ssl_client_fingerprint"},
			{Name: "X-Client-Cert-DN", Value: "$ssl_client_s_dn"}}},
		ResponseHeaders: &api.HeaderFilter{Set: []api.Header{{Name: "Request-Id", Value: "$req_id"}},
			Add: []api.Header{{Name: "X-Served-By", Value: "restyplane $host"}}}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("location of header variables (-want +got):\n%s", diff)
	}
	if _, err := translateSnippet("server-snippet", "location /x { proxy_pass http://x; }"); err == nil || !strings.Contains(err.Error(), "answers itself") {
		t.Errorf("a server-snippet location that proxies: %v", err)
	}
}

// TestTranslateSnippetIsValid: an Ingress with translated snippets writes a valid state,
// its server-snippet's locations on its host.
func TestTranslateSnippetIsValid(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	objs := []runtime.Object{kubetest.Service(ns, "web", 80), kubetest.EndpointSlice(ns, "web", "w", 8080, kubetest.Ready("10.0.0.1")...),
		aged(kubetest.Ingress(ns, "a", "c", kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}), 0,
			nginxPrefix+"server-snippet", "location ~ ^/(metrics|ready)$ { return 403; }\nlocation /admin { deny all; }",
			nginxPrefix+"configuration-snippet", "more_set_headers \"X-A: b\";\nproxy_cache c;\nadd_header X-Cache-Status $upstream_cache_status;")}
	head := api.NewState()
	tr := Translate(snapshotOf(objs...), head)
	storeAccepts(t, tr, head)
	srv := tr.Servers["k8s."+host]
	if srv == nil || len(srv.Locations) != 3 {
		t.Fatalf("server %+v, want the Ingress's path and the snippet's two locations", srv)
	}
}
