package render_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// gatewayInput is every user value of Gateway API's additions that reaches nginx.conf or
// its Lua: conditions, a full-path rewrite, a mirror, a redirect's parts and a port. They
// are on a server of their own (gatewayHost) in FuzzRender's config.
type gatewayInput struct {
	method, matchHeader, matchValue, matchRegex, queryName, queryValue string
	rewriteFull, redirectHost, redirectPrefix, mirror, port            string
}

// gatewayHost names the server of the Gateway API's values; an input naming it is skipped.
const gatewayHost = "gw.fuzz.example"

// benign maps the input to placeholders that make the same decisions in the renderer.
func (in gatewayInput) benign() gatewayInput {
	b := gatewayInput{matchHeader: "X-M", matchValue: "v", matchRegex: "r", queryName: "q", queryValue: "v", mirror: "m", port: in.port}
	set := func(dst *string, v, placeholder string) {
		if v != "" {
			*dst = placeholder
		}
	}
	set(&b.method, in.method, "GET")
	set(&b.rewriteFull, in.rewriteFull, "/f")
	set(&b.redirectHost, in.redirectHost, "r.example")
	set(&b.redirectPrefix, in.redirectPrefix, "/pp")
	return b
}

// server is the server of the input's values, a location with conditions, a rewrite and
// a mirror, a redirect by parts and a location without conditions to fall through to.
func (in gatewayInput) server(backend string) (api.Server, bool) {
	port := 0
	if in.port != "" {
		p, err := strconv.Atoi(in.port)
		if err != nil || strconv.Itoa(p) != in.port || p == 8443 { // 8443: the instance's HTTPS port
			return api.Server{}, false
		}
		port = p
	}
	when := &api.RequestMatch{Method: in.method,
		Headers: []api.ValueMatch{{Name: in.matchHeader, Value: in.matchValue}, {Name: "X-R", Type: api.ValueRegex, Value: in.matchRegex}},
		Query:   []api.ValueMatch{{Name: in.queryName, Value: in.queryValue}}}
	return api.Server{Name: "gw", Hostnames: []string{gatewayHost}, Port: port, Locations: []api.Location{
		{Path: "/c", Backend: backend, When: when, RewriteFull: in.rewriteFull, Mirror: []api.Mirror{{Backend: in.mirror}}},
		{Path: "/r", Redirect: &api.Redirect{Scheme: "https", Hostname: in.redirectHost, PrefixPath: in.redirectPrefix}},
		{Path: "/", Backend: backend},
	}}, true
}

// initRe is the whole body of init_by_lua_block with route tables: the generation, a
// comment, and the tables' JSON as Lua string literals, nothing else.
var initRe = regexp.MustCompile(`(?s)init_by_lua_block \{\n\s*require\("restyplane\.init"\)\.init\(\{ generation = "7" \}\)\n(?:\s*--[^\n]*\n)*\s*require\("restyplane\.match"\)\.init\(\{\n((?:\s*"(?:[^"\\\n]|\\.)*",\n)+)\s*\}\)\n\s*\}`)

// checkGateway fails unless the input's values come back from nginx's tokenizer, and from
// the Lua literals of the route tables, intact: got are the statements of real, the conf.
func checkGateway(t *testing.T, in gatewayInput, got []stmt, real string) {
	t.Helper()
	want := map[string]bool{"mirror": false, "redirect": false, "rewriteFull": in.rewriteFull == ""}
	target := "https://${host}"
	if in.redirectHost != "" {
		target = "https://" + in.redirectHost
	}
	if in.redirectPrefix != "" {
		target += "${rp_redirect_path}${is_args}${args}"
	} else {
		target += "${request_uri}"
	}
	server := ""
	for _, s := range got {
		if s.name == "server_name" {
			server = strings.Join(s.args, " ")
		}
		switch {
		case server != gatewayHost:
		case s.name == "mirror":
			want["mirror"] = len(s.args) == 1 && s.args[0] == "/restyplane mirror/0"
		case s.name == "return" && len(s.args) == 2 && s.args[0] == "302":
			want["redirect"] = s.args[1] == target
		case s.name == "rewrite" && len(s.args) == 3 && s.args[0] == "^" && in.rewriteFull != "":
			want["rewriteFull"] = s.args[1] == in.rewriteFull
		}
	}
	for what, ok := range want {
		if !ok {
			t.Fatalf("%+v: the %s does not survive nginx's tokenizer intact:\n%s", in, what, real)
		}
	}
	if in.redirectPrefix != "" && !strings.Contains(real, "prefix_path(2, "+luaLiteral(in.redirectPrefix)+")") {
		t.Fatalf("%+v: the prefix path is not the Lua literal %s:\n%s", in, luaLiteral(in.redirectPrefix), real)
	}
	m := initRe.FindStringSubmatch(real)
	if m == nil {
		t.Fatalf("%+v: init_by_lua_block holds more than the route tables:\n%s", in, real)
	}
	var tables []struct {
		Prefix map[string][]struct {
			Location, Method string
			Headers, Query   []struct{ Name, Exact, Regex string }
		}
	}
	if err := json.Unmarshal([]byte(luaStrings(t, m[1])), &tables); err != nil || len(tables) != 1 || len(tables[0].Prefix["/c"]) != 1 {
		t.Fatalf("%+v: the route tables do not decode: %v %+v", in, err, tables)
	}
	c := tables[0].Prefix["/c"][0]
	h, q := c.Headers, c.Query
	if c.Method != in.method || len(h) != 2 || len(q) != 1 || h[0].Name != "http_"+strings.ToLower(strings.ReplaceAll(in.matchHeader, "-", "_")) ||
		h[0].Exact != in.matchValue || h[1].Regex != api.AnchoredRegex(in.matchRegex) || q[0].Name != in.queryName || q[0].Exact != in.queryValue {
		t.Fatalf("%+v: the conditions came back from Lua as %+v", in, c)
	}
}

// luaLiteral is s, a path of api's grammar, as the renderer writes a Lua string.
func luaLiteral(s string) string { return `"` + s + `"` }

// luaStrings reads the Lua string literals of list, as Lua does, and joins them.
func luaStrings(t *testing.T, list string) string {
	t.Helper()
	var b strings.Builder
	for _, lit := range regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`).FindAllString(list, -1) {
		s := lit[1 : len(lit)-1]
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' {
				b.WriteByte(s[i])
				continue
			}
			i++
			if s[i] >= '0' && s[i] <= '9' {
				n, err := strconv.Atoi(s[i : i+3])
				if err != nil {
					t.Fatalf("Lua escape %q", s[i-1:i+3])
				}
				b.WriteByte(byte(n))
				i += 2
				continue
			}
			b.WriteByte(s[i]) // \" and \\
		}
	}
	return b.String()
}
