package api

import "testing"

func TestValidOrigin(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"*", true}, {"https://app.example.com", true}, {"http://a.test:8080", true}, {"https://*.example.com", true},
		{"https://*.example.com:8443", true}, {"http://[::1]:3000", true}, {"http://10.0.0.1", true},
		{"https://*.com", false}, {"https://Example.com", false}, {"https://a.test/", false}, {"ftp://a.test", false},
		{"https://a.test:99999", false}, {"https://a.*.test", false}, {"https://(.*).test", false}, {"null", false},
		{"https://a.test\"", false}, {"https://a.test;", false}, {"https://*", false}, {"", false},
	} {
		if err := ValidOrigin("o", c.in); (err == nil) != c.ok {
			t.Errorf("ValidOrigin(%q) = %v, want ok %t", c.in, err, c.ok)
		}
	}
}

func TestRedirectValidation(t *testing.T) {
	for _, c := range []struct {
		name  string
		loc   Location
		field string
	}{
		{"redirect without backend", Location{Path: "/a", Redirect: &Redirect{URL: "https://b.test/x?y=1", Code: 308}}, ""},
		{"path redirect", Location{Path: "/a", Redirect: &Redirect{URL: "/b?c=d"}}, ""},
		{"no backend, no redirect", Location{Path: "/a"}, "locations[0].backend"},
		{"bad code", Location{Path: "/a", Redirect: &Redirect{URL: "/b", Code: 304}}, "locations[0].redirect.code"},
		{"variable", Location{Path: "/a", Redirect: &Redirect{URL: "/b$uri"}}, "locations[0].redirect.url"},
		{"relative", Location{Path: "/a", Redirect: &Redirect{URL: "b"}}, "locations[0].redirect.url"},
		{"with rewrite", Location{Path: "/a", Rewrite: "/", Redirect: &Redirect{URL: "/b"}}, "locations[0].rewrite"},
		{"with cors", Location{Path: "/a", CORS: &CORS{}, Redirect: &Redirect{URL: "/b"}}, "locations[0].cors"},
		{"star and others", Location{Path: "/a", Backend: "b", CORS: &CORS{AllowOrigins: []string{"*", "https://a.test"}}}, "locations[0].cors.allowOrigins[0]"},
		{"lowercase method", Location{Path: "/a", Backend: "b", CORS: &CORS{AllowMethods: []string{"get"}}}, "locations[0].cors.allowMethods[0]"},
		{"unknown cors rules", Location{Path: "/a", Backend: "b", CORS: &CORS{Rules: "w3c"}}, "locations[0].cors.rules"},
		{"star method among others", Location{Path: "/a", Backend: "b", CORS: &CORS{AllowMethods: []string{"GET", "*"}}}, "locations[0].cors.allowMethods[1]"},
	} {
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{c.loc}}
		err := s.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if e, ok := err.(*Error); !ok || e.Field != c.field {
			t.Errorf("%s: error %v, want one for %s", c.name, err, c.field)
		}
	}
}

func TestWWWPartner(t *testing.T) {
	for in, want := range map[string]string{"example.com": "www.example.com", "www.example.com": "example.com",
		"www.com": "", "*.example.com": "", "_": "", "a.b.example.com": "www.a.b.example.com"} {
		got, ok := WWWPartner(in)
		if got != want || ok != (want != "") {
			t.Errorf("WWWPartner(%q) = %q %t, want %q", in, got, ok, want)
		}
	}
}

// TestCORSHeaderNames: CORS header lists take every RFC 9110 token (real Ingresses list
// names such as X_Custom_ID or X.Trace), "*" the Fetch wildcard among them; nothing else.
func TestCORSHeaderNames(t *testing.T) {
	valid := func(headers ...string) error {
		c := &CORS{AllowOrigins: []string{"*"}, AllowHeaders: headers}
		return c.validate()
	}
	for _, hs := range [][]string{{"X_Custom_ID", "X.Trace", "Content-Type"}, {"*"}, {"x~y", "a|b", "q!"}} {
		if err := valid(hs...); err != nil {
			t.Errorf("%q: %v, want nil", hs, err)
		}
	}
	for _, hs := range [][]string{{"X Space"}, {"X;Y"}, {"X{Y}"}, {"X\"Y"}, {""}} {
		if err := valid(hs...); ErrorCode(err) != EInvalid {
			t.Errorf("%q: %v, want invalid", hs, err)
		}
	}
}
