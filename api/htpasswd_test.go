package api

import (
	"strings"
	"testing"
)

func TestHtpasswdValidate(t *testing.T) {
	good := []string{
		"$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/",
		"{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=",
		"$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
		"$2b$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
		"$5$abc$qsg6EHbUzHQzF1POlD7zUwBINSELQxypPaeDcZe6vH0",
		"$6$rounds=5000$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.",
	}
	for _, h := range good {
		if err := ValidPasswordHash(h); err != nil {
			t.Errorf("ValidPasswordHash(%q) = %v, want nil", h, err)
		}
	}
	bad := []string{
		"secret",                        // a password in clear
		"{PLAIN}secret",                 // nginx would take it: refused on purpose
		"abNANd1rDfiNc",                 // DES crypt
		"$1$abc$iCQ2D3nhptRYi27fDYv2s1", // MD5-crypt
		"$y$j9T$abcdefgh$IUWJt2doU4Kf6E/JP1UkAT3S5O3Q7SSA8SJirXIlEu9", // yescrypt
		"$2a$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
		"$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/ ",
		"{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\r",
	}
	for _, h := range bad {
		if err := ValidPasswordHash(h); err == nil {
			t.Errorf("ValidPasswordHash(%q) = nil, want an error", h)
		}
	}
	for _, tc := range []struct {
		content, wantErr string
		users            string
	}{
		{content: "alice:" + good[0] + "\nbob:" + good[2] + "\n", users: "alice,bob"},
		{content: "alice:" + good[0], users: "alice"},
		{content: "alice:" + good[0] + "\n\n", wantErr: "line 2"},
		{content: "# comment\nalice:" + good[0], wantErr: "line 1"},
		{content: "alice:hunter2", wantErr: "password hash"},
		{content: "alice:" + good[0] + "\nalice:" + good[1], wantErr: "twice"},
		{content: "al ice:" + good[0], wantErr: "user name"},
		{content: "alice:" + good[0] + "\r\n", wantErr: "password hash"},
	} {
		h := Htpasswd{Name: "users", Content: tc.content}
		err := h.Validate()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Validate(%q) = %v, want an error containing %q", tc.content, err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error quotes the password: %v", err)
			}
			continue
		}
		if err != nil || strings.Join(h.Users, ",") != tc.users || len(h.Fingerprint) != 64 {
			t.Errorf("Validate(%q) = %v, users %v, fingerprint %q", tc.content, err, h.Users, h.Fingerprint)
		}
		if r := h.Redacted(); r.Content != "" || r.Fingerprint != h.Fingerprint {
			t.Errorf("Redacted() = %+v, want no content and the fingerprint", r)
		}
	}
}

func TestHtpasswdInUseCannotBeDeleted(t *testing.T) {
	s := NewState()
	s.Backends["b"] = &Backend{Name: "b"}
	s.Htpasswds["users"] = &Htpasswd{Name: "users", Content: "x"}
	s.Servers["s"] = &Server{Name: "s", Hostnames: []string{"h"}, Locations: []Location{
		{Path: "/", Backend: "b", Auth: &LocationAuth{Basic: &BasicAuth{Htpasswd: "users"}}}}}
	if err := s.Check([]Ref{{KindServer, "s"}}); err != nil {
		t.Fatalf("Check = %v", err)
	}
	delete(s.Htpasswds, "users")
	if err := s.Check([]Ref{{KindHtpasswd, "users"}}); err == nil || !strings.Contains(err.Error(), "used by server") {
		t.Fatalf("deleting a used htpasswd: %v, want a conflict", err)
	}
	if err := s.Check([]Ref{{KindServer, "s"}}); err == nil || !strings.Contains(err.Error(), "auth.basic.htpasswd") {
		t.Fatalf("a server naming a missing htpasswd: %v, want an error naming the field", err)
	}
}

func TestExternalAuthValidate(t *testing.T) {
	for _, tc := range []struct {
		e       ExternalAuth
		wantErr string
	}{
		{e: ExternalAuth{URL: "http://auth.internal:8080/verify", Method: "POST", Signin: "https://login.test/start?a=b&c=d", ResponseHeaders: []string{"X-User"}}},
		{e: ExternalAuth{URL: "https://[::1]/v"}},
		{e: ExternalAuth{URL: "ftp://a/"}, wantErr: "url"},
		{e: ExternalAuth{URL: "http://a:0/"}, wantErr: "port"},
		{e: ExternalAuth{URL: "http://a:99999/"}, wantErr: "port"},
		{e: ExternalAuth{URL: "http://$host/"}, wantErr: "url"},
		{e: ExternalAuth{URL: "http://a/", Signin: "https://b/$uri"}, wantErr: "signin"},
		{e: ExternalAuth{URL: "http://a/", Method: "get"}, wantErr: "method"},
		{e: ExternalAuth{URL: "http://a/", ResponseHeaders: []string{"X-A", "x-a"}}, wantErr: "twice"},
		{e: ExternalAuth{URL: "http://a/", RequestRedirect: "$request_uri"}, wantErr: "requestRedirect"},
	} {
		err := (&LocationAuth{External: &tc.e}).validate()
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%+v: %v, want %q", tc.e, err, tc.wantErr)
		}
	}
}

func TestAuthHeadersDoNotClash(t *testing.T) {
	for _, tc := range []struct {
		l       Location
		wantErr string
	}{
		{l: Location{Path: "/", Backend: "b", Auth: &LocationAuth{External: &ExternalAuth{URL: "http://a/", ResponseHeaders: []string{"host"}}}}, wantErr: "set by the proxy"},
		{l: Location{Path: "/", Backend: "b", SetHeaders: []Header{{Name: "X-User", Value: "x"}},
			Auth: &LocationAuth{External: &ExternalAuth{URL: "http://a/", ResponseHeaders: []string{"x-user"}}}}, wantErr: "setHeaders"},
		{l: Location{Path: "/", Backend: "b", Auth: &LocationAuth{External: &ExternalAuth{URL: "http://a/", ResponseHeaders: []string{"X-User"}}}}},
	} {
		err := tc.l.validate()
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.wantErr)
		}
	}
}
