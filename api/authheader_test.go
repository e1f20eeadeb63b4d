package api

import (
	"strings"
	"testing"
)

// TestAuthRequestHeaders: an external auth's subrequest headers are tokens named once,
// none of the proxy's own, with values of text and HeaderVariables only.
func TestAuthRequestHeaders(t *testing.T) {
	for _, c := range []struct {
		name    string
		headers []Header
		field   string // "" when valid
	}{
		{"authelia's", []Header{{"X-Forwarded-Method", "$request_method"}, {"X-Forwarded-Uri", "$request_uri"},
			{"X-Forwarded-For", "$remote_addr"}, {"X-Forwarded-Host", "$http_host"}}, ""},
		{"text", []Header{{"X-Tenant", "shop"}}, ""},
		{"unlisted variable", []Header{{"X-A", "$cookie_session"}}, "requestHeaders[0].value"},
		{"braced variable", []Header{{"X-A", "${host}"}}, "requestHeaders[0].value"},
		{"host", []Header{{"host", "$host"}}, "requestHeaders[0].name"},
		{"redirect", []Header{{"X-Auth-Request-Redirect", "/x"}}, "requestHeaders[0].name"},
		{"framing", []Header{{"Transfer-Encoding", "chunked"}}, "requestHeaders[0].name"},
		{"twice", []Header{{"X-A", "a"}, {"x-a", "b"}}, "requestHeaders[1].name"},
		{"newline", []Header{{"X-A", "a\nb"}}, "requestHeaders[0].value"},
	} {
		l := Location{Path: "/", Backend: "b", Auth: &LocationAuth{External: &ExternalAuth{URL: "http://auth.internal/verify", RequestHeaders: c.headers}}}
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{l}}
		err := s.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), "auth.external."+c.field+":")):
			t.Errorf("%s: %v, want an error naming auth.external.%s", c.name, err, c.field)
		}
	}
}
