package render_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// headersInput is every user value of header filters and fixed answers that reaches
// nginx.conf: a request header set, one added to and one removed, a response header set
// and one removed, and a fixed answer's code and body with a response header added.
type headersInput struct {
	reqName, reqValue, addName, addValue, removeName, respName, respValue, hideName, body string
	code                                                                                  int
}

// benign maps the input to placeholders that make the same decisions in the renderer: a
// request header named as a default header replaces it, so that name is kept.
func (in headersInput) benign() headersInput {
	keep := func(name, placeholder string) string {
		for _, d := range defaultHeaderNames {
			if strings.EqualFold(name, d) {
				return d
			}
		}
		return placeholder
	}
	b := headersInput{reqName: keep(in.reqName, "X-R"), reqValue: "v", addName: keep(in.addName, "X-A"), addValue: "a",
		removeName: keep(in.removeName, "X-D"), respName: "X-S", respValue: "s", hideName: "X-H", code: in.code}
	if in.body != "" {
		b.body = "b"
	}
	return b
}

func (in headersInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"}, Locations: []api.Location{
		{Path: "/p", Match: api.MatchPrefix, Backend: "b",
			RequestHeaders: &api.HeaderFilter{Set: []api.Header{{Name: in.reqName, Value: in.reqValue}},
				Add: []api.Header{{Name: in.addName, Value: in.addValue}}, Remove: []string{in.removeName}},
			ResponseHeaders: &api.HeaderFilter{Set: []api.Header{{Name: in.respName, Value: in.respValue}}, Remove: []string{in.hideName}}},
		{Path: "/fixed", Match: api.MatchExact, Return: &api.Return{Code: in.code, Body: in.body},
			ResponseHeaders: &api.HeaderFilter{Add: []api.Header{{Name: in.respName, Value: in.respValue}}}},
		{Path: "/deny", Match: api.MatchPrefix, Deny: true},
	}}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkHeadersNoInjection fails if accepted header filters or a fixed answer change the
// structure of nginx.conf, or do not come back from nginx's tokenizer as written.
func checkHeadersNoInjection(t *testing.T, in headersInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	source := "$http_" + strings.ReplaceAll(strings.ToLower(in.addName), "-", "_")
	ret := []string{strconv.Itoa(in.code)}
	if in.body != "" {
		ret = append(ret, in.body)
	}
	seen := map[string]int{}
	for _, s := range got {
		switch {
		case s.name == "proxy_set_header" && cmp.Equal(s.args, []string{in.reqName, in.reqValue}):
			seen["set"]++
		case s.name == "proxy_set_header" && cmp.Equal(s.args, []string{in.removeName, ""}):
			seen["remove"]++
		case s.name == "proxy_set_header" && len(s.args) == 2 && s.args[0] == in.addName && strings.HasPrefix(s.args[1], "$rp_header_add_"):
			seen["add"]++
		case s.name == "default" && cmp.Equal(s.args, []string{source + "," + in.addValue}):
			seen["map"]++
		case s.name == "proxy_hide_header" && (s.args[0] == in.hideName || s.args[0] == in.respName):
			seen["hide"]++
		case s.name == "add_header" && cmp.Equal(s.args, []string{in.respName, in.respValue, "always"}):
			seen["response"]++
		case s.name == "return" && cmp.Equal(s.args, ret):
			seen["return"]++
		case s.name == "return" && cmp.Equal(s.args, []string{"403"}):
			seen["deny"]++
		}
	}
	want := map[string]int{"set": 1, "remove": 1, "add": 1, "map": 1, "hide": 2, "response": 2, "return": 1, "deny": 1}
	if cmp.Equal(ret, []string{"403"}) {
		want["return"] = 2 // the fixed answer and the deny look alike
		delete(want, "deny")
	}
	// The rest of the conf has returns of its own (the catch-all's 404).
	base := in.config()
	base.Servers[0].Locations = base.Servers[0].Locations[:1]
	conf, err := render.Conf(base, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	others, _ := tokenize(string(conf))
	for _, s := range others {
		if s.name == "return" && cmp.Equal(s.args, ret) {
			want["return"]++
		}
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Fatalf("%+v: the values do not survive nginx's tokenizer intact (-want +got):\n%s\n%s", in, diff, real)
	}
}

var headersSeeds = []headersInput{
	{"X-Team", "checkout", "X-Tags", "a,b", "Cookie", "Strict-Transport-Security", "max-age=31536000; includeSubDomains", "X-Powered-By", "forbidden", 403},
	{"Host", "api.internal", "X-Forwarded-For", "10.0.0.1", "Upgrade", "Content-Security-Policy", "default-src 'self' {x} #y", "Server-Timing", "", 404},
	{"X$a", `v" ; return 200 "x`, "X-A", "a;b", "X-B", "X-C", "$host", "X-D", `"; deny all; "`, 200},
	{"X.b!", "a{b}", "X-A", "#c", "x'y", "X|z", "v\\w", "X`q", "ok {}", 410},
	// Values that name variables of api.HeaderVariables, as translated snippets write them.
	{"X-Client-DN", "$ssl_client_s_dn", "X-A", "a", "X-B", "Request-Id", "$req_id", "X-D", "", 204},
	{"X-URL", "$scheme://$host$request_uri", "X-A", "a", "X-B", "X-Via", "proxy $remote_addr;x", "X-D", "", 204},
}

func FuzzRenderHeaders(f *testing.F) {
	for _, s := range headersSeeds {
		f.Add(s.reqName, s.reqValue, s.addName, s.addValue, s.removeName, s.respName, s.respValue, s.hideName, s.body, s.code)
	}
	f.Fuzz(func(t *testing.T, reqName, reqValue, addName, addValue, removeName, respName, respValue, hideName, body string, code int) {
		checkHeadersNoInjection(t, headersInput{reqName, reqValue, addName, addValue, removeName, respName, respValue, hideName, body, code})
	})
}

// TestRenderHeadersAddsNoDirective is FuzzRenderHeaders's bounded sibling for every
// `go test`.
func TestRenderHeadersAddsNoDirective(t *testing.T) {
	h := newHostile(36)
	soupTest[headersInput]{inputs: 3000, least: 300, seeds: headersSeeds, check: checkHeadersNoInjection, next: func(i int) headersInput {
		in := headersSeeds[i%2]
		switch h.Intn(9) {
		case 0:
			in.reqName = h.word("X")
		case 1:
			in.reqValue = h.word("v")
		case 2:
			in.addName = h.word("X")
		case 3:
			in.addValue = h.word("a")
		case 4:
			in.removeName = h.word("X")
		case 5:
			in.respName = h.word("X")
		case 6:
			in.respValue = h.word("s")
		case 7:
			in.hideName = h.word("X")
		default:
			in.body = h.word("b")
		}
		return in
	}}.run(t)
}
