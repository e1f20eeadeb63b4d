package api

import (
	"strings"
	"testing"
)

// TestHeaderFiltersAndAnswersValidate: header names are RFC 9110 tokens but the framing
// headers, values visible ASCII without '"' or '\', a '$' only before a variable of
// HeaderVariables (and none in a request header added to); a name is set or removed once; a
// location that returns or denies needs no backend and takes nothing it would not run.
func TestHeaderFiltersAndAnswersValidate(t *testing.T) {
	hf := func(set, add []Header, remove ...string) *HeaderFilter {
		return &HeaderFilter{Set: set, Add: add, Remove: remove}
	}
	h := func(n, v string) []Header { return []Header{{Name: n, Value: v}} }
	for _, c := range []struct {
		name  string
		loc   Location
		field string // "" when valid
	}{
		{"response set, add, remove", Location{Backend: "b", ResponseHeaders: hf(
			h("Strict-Transport-Security", "max-age=31536000; includeSubDomains"),
			h("Content-Security-Policy", "default-src 'self'; img-src *"), "X-Powered-By", "Server-Timing")}, ""},
		{"request set, add, remove", Location{Backend: "b", RequestHeaders: hf(h("X-Team", "a{b}#c"), h("X-Tags", "x"), "Cookie")}, ""},
		{"token name", Location{Backend: "b", ResponseHeaders: hf(h("X.Custom_h!", "v"), nil)}, ""},
		{"name not a token", Location{Backend: "b", ResponseHeaders: hf(h("X Team", "v"), nil)}, "responseHeaders.set[0].name"},
		{"framing header", Location{Backend: "b", RequestHeaders: hf(nil, nil, "transfer-encoding")}, "requestHeaders.remove[0]"},
		{"value with a listed variable", Location{Backend: "b", ResponseHeaders: hf(h("Request-Id", "$req_id"), h("X-Via", "proxy $host"))}, ""},
		{"request values with listed variables", Location{Backend: "b", RequestHeaders: hf(h("X-Client-DN", "$ssl_client_s_dn"), nil)}, ""},
		{"value with variables side by side", Location{Backend: "b", RequestHeaders: hf(h("X-URL", "$scheme://$host$request_uri"), nil)}, ""},
		{"value with an unlisted variable", Location{Backend: "b", ResponseHeaders: hf(h("X-A", "$cookie_session"), nil)}, "responseHeaders.set[0].value"},
		{"value with a listed name run on", Location{Backend: "b", ResponseHeaders: hf(h("X-A", "$hostx"), nil)}, "responseHeaders.set[0].value"},
		{"value with a braced variable", Location{Backend: "b", RequestHeaders: hf(h("X-A", "${host}"), nil)}, "requestHeaders.set[0].value"},
		{"value with a lone $", Location{Backend: "b", RequestHeaders: hf(h("X-A", "a$"), nil)}, "requestHeaders.set[0].value"},
		{"request add with a variable", Location{Backend: "b", RequestHeaders: hf(nil, h("X-A", "$host"))}, "requestHeaders.add[0].value"},
		{"value with quote", Location{Backend: "b", ResponseHeaders: hf(nil, h("X-A", `a"b`))}, "responseHeaders.add[0].value"},
		{"value with newline", Location{Backend: "b", ResponseHeaders: hf(nil, h("X-A", "a\nb"))}, "responseHeaders.add[0].value"},
		{"value with space and $", Location{Backend: "b", ResponseHeaders: hf(nil, h("X-A", "a $b"))}, "responseHeaders.add[0].value"},
		{"empty value", Location{Backend: "b", RequestHeaders: hf(h("X-A", ""), nil)}, "requestHeaders.set[0].value"},
		{"value with double space", Location{Backend: "b", ResponseHeaders: hf(nil, h("X-A", "a  b"))}, "responseHeaders.add[0].value"},
		{"set and removed", Location{Backend: "b", ResponseHeaders: hf(h("X-A", "v"), nil, "x-a")}, "responseHeaders.remove[0]"},
		{"added and set", Location{Backend: "b", ResponseHeaders: hf(h("X-A", "v"), h("X-A", "w"))}, "responseHeaders.add[0].name"},
		{"request add not a variable name", Location{Backend: "b", RequestHeaders: hf(nil, h("X.A", "v"))}, "requestHeaders.add[0].name"},
		{"in setHeaders too", Location{Backend: "b", SetHeaders: h("X-A", "v"), RequestHeaders: hf(nil, nil, "X-A")}, "requestHeaders"},
		{"return", Location{Return: &Return{Code: 403, Body: "no {entry}; #"}}, ""},
		{"return body with newline", Location{Return: &Return{Code: 200, Body: "a\nb"}}, "return.body"},
		{"return with headers", Location{Return: &Return{Code: 200, Body: "ok"}, ResponseHeaders: hf(h("Cache-Control", "no-store"), nil)}, ""},
		{"deny", Location{Deny: true}, ""},
		{"no backend", Location{}, "backend"},
		{"return a redirect code", Location{Return: &Return{Code: 301}}, "return.code"},
		{"return 99", Location{Return: &Return{Code: 99}}, "return.code"},
		{"return body with $", Location{Return: &Return{Code: 200, Body: "$host"}}, "return.body"},
		{"return and deny", Location{Return: &Return{Code: 200}, Deny: true}, "return"},
		{"deny with a rewrite", Location{Deny: true, Rewrite: "/x"}, "rewrite"},
		{"return with request headers", Location{Return: &Return{Code: 200}, RequestHeaders: hf(nil, nil, "X-A")}, "requestHeaders"},
	} {
		c.loc.Path = "/p"
		s := Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{c.loc}}
		s.Normalize()
		err := s.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), "locations[0]."+c.field+":")):
			t.Errorf("%s: %v, want an error naming locations[0].%s", c.name, err, c.field)
		}
	}
}
