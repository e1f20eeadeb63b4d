package reconciler

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// snippetFields is what translated snippets ask: fields for every location of the
// Ingress, and, from a server-snippet's location blocks, locations of their own on each
// of its hosts. became says, directive by directive, what each one became.
type snippetFields struct {
	req, resp api.HeaderFilter
	// statusHeader is add_header's name for $upstream_cache_status, which needs a cache.
	statusHeader string
	cache        *api.CachePolicy
	expires      string
	proxy        api.ProxyPolicy
	timeouts     api.Timeouts
	ret          *api.Return
	deny         bool
	redirect     *api.Redirect
	locations    []api.Location
	became       []string
}

// translateSnippet reads a configuration-snippet or server-snippet (kind) and translates
// each of its directives into typed fields; an error names the first directive that has
// no typed equivalent, or why the snippet cannot be read.
func translateSnippet(kind, value string) (*snippetFields, error) {
	f := &snippetFields{}
	return f, f.add(kind, value)
}

// add translates one more snippet into f.
func (f *snippetFields) add(kind, value string) error {
	ds, err := parseSnippet(value)
	if err != nil {
		return err
	}
	return f.translate(kind, ds)
}

// parseSnippets reads configuration-snippet and server-snippet, which classify has
// translated, into what the Ingress's locations get.
func parseSnippets(get func(string) (string, bool), a *annotations) error {
	var f *snippetFields
	for _, kind := range []string{"configuration-snippet", "server-snippet"} {
		v, ok := get(kind)
		if !ok {
			continue
		}
		if f == nil {
			f = &snippetFields{}
		}
		if err := f.add(kind, v); err != nil {
			return fmt.Errorf("annotation %s: %w", kind, err)
		}
	}
	a.snippet = f
	return nil
}

// translate adds the directives of one snippet to f and checks the result on a stand-in
// location, so that a value outside api's grammars is refused with the directive's name.
func (f *snippetFields) translate(kind string, ds []directive) error {
	if len(ds) == 0 {
		f.became = append(f.became, "nothing: the "+kind+" holds no directive")
	}
	for _, d := range ds {
		if d.name == "location" {
			if kind != "server-snippet" {
				return fmt.Errorf("directive location: a location inside a location is not translated; a server-snippet may add locations")
			}
			if err := f.location(d); err != nil {
				return fmt.Errorf("%s (line %d): %w", d, d.line, err)
			}
			continue
		}
		if err := f.directive(d); err != nil {
			return fmt.Errorf("%s (line %d): %w", d, d.line, err)
		}
	}
	if f.statusHeader != "" {
		if f.cache == nil {
			return fmt.Errorf("add_header %s $upstream_cache_status: the snippet caches nothing (no proxy_cache)", f.statusHeader)
		}
		f.cache.StatusHeader = f.statusHeader
	}
	l := api.Location{Path: "/", Backend: "x"}
	f.apply(&l)
	if err := (&api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: append([]api.Location{l}, f.locations...)}).Validate(); err != nil {
		return fmt.Errorf("what the snippet translates to is not valid: %w", err)
	}
	return nil
}

// answersItself mirrors api's rule: a location that returns, denies or redirects needs
// no backend.
func (f *snippetFields) answersItself() bool { return f.ret != nil || f.deny || f.redirect != nil }

// apply puts the translated fields on a location of the Ingress.
func (f *snippetFields) apply(l *api.Location) {
	if h := f.req; len(h.Set)+len(h.Add)+len(h.Remove) > 0 {
		l.RequestHeaders = mergeFilter(l.RequestHeaders, h)
	}
	if h := f.resp; len(h.Set)+len(h.Add)+len(h.Remove) > 0 {
		l.ResponseHeaders = mergeFilter(l.ResponseHeaders, h)
	}
	if f.cache != nil {
		l.Cache = f.cache
	}
	if f.expires != "" {
		l.Expires = f.expires
	}
	if f.proxy != (api.ProxyPolicy{}) {
		p := api.ProxyPolicy{}
		if l.Proxy != nil {
			p = *l.Proxy
		}
		overlay(&p.BodySize, f.proxy.BodySize)
		overlay(&p.ClientBodyBufferSize, f.proxy.ClientBodyBufferSize)
		overlay(&p.Buffering, f.proxy.Buffering)
		overlay(&p.RequestBuffering, f.proxy.RequestBuffering)
		overlay(&p.BufferSize, f.proxy.BufferSize)
		if f.proxy.BuffersNumber > 0 {
			p.BuffersNumber = f.proxy.BuffersNumber
		}
		l.Proxy = &p
	}
	if f.timeouts != (api.Timeouts{}) {
		t := api.Timeouts{}
		if l.Timeouts != nil {
			t = *l.Timeouts
		}
		overlay(&t.Connect, f.timeouts.Connect)
		overlay(&t.Read, f.timeouts.Read)
		overlay(&t.Send, f.timeouts.Send)
		l.Timeouts = &t
	}
	if f.answersItself() {
		l.Return, l.Deny, l.Redirect = f.ret, f.deny, f.redirect
		l.Backend, l.Rewrite = "", ""
	}
}

func overlay(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// mergeFilter is a location's header filter with the snippet's added.
func mergeFilter(h *api.HeaderFilter, add api.HeaderFilter) *api.HeaderFilter {
	out := api.HeaderFilter{}
	if h != nil {
		out = api.HeaderFilter{Set: slices.Clone(h.Set), Add: slices.Clone(h.Add), Remove: slices.Clone(h.Remove)}
	}
	out.Set = append(out.Set, add.Set...)
	out.Add = append(out.Add, add.Add...)
	out.Remove = append(out.Remove, add.Remove...)
	return &out
}

// defaultRequestHeaders are the request headers restyplane already sends upstream, with
// the values a snippet may write for them: such a proxy_set_header asks for nothing more
// (the X-Forwarded-* ones follow settings' useForwardedHeaders, proxy-wide).
var defaultRequestHeaders = map[string][]string{
	"host":              {"$host", "$http_host"},
	"x-real-ip":         {"$remote_addr"},
	"x-forwarded-for":   {"$proxy_add_x_forwarded_for", "$remote_addr"},
	"x-forwarded-proto": {"$scheme"},
	"x-forwarded-host":  {"$host", "$http_host"},
	"x-forwarded-port":  {"$server_port"},
	"upgrade":           {"$http_upgrade"},
	"connection":        {"upgrade", "$connection_upgrade", "$http_connection"},
}

// noTranslation says why a directive has no typed equivalent, for those often found in
// snippets; any other directive is unknown.
var noTranslation = map[string]string{
	"if":                          "its condition is nginx variables, which are not read",
	"set":                         "it sets an nginx variable, which nothing typed reads",
	"proxy_pass":                  "the backend is the Ingress's Service",
	"allow":                       "use the whitelist-source-range annotation",
	"auth_request":                "use the auth-url annotation",
	"ssl_verify_client":           "use the auth-tls-* annotations",
	"proxy_ssl_certificate":       "use the proxy-ssl-secret annotation, which reads a Secret",
	"proxy_ssl_certificate_key":   "use the proxy-ssl-secret annotation, which reads a Secret",
	"large_client_header_buffers": "header buffers of the client are not typed yet",
	"root":                        "restyplane serves no files of its own disk",
	"alias":                       "restyplane serves no files of its own disk",
	"error_page":                  "use the custom-http-errors and default-backend annotations",
}

// directive translates one directive of the location context.
func (f *snippetFields) directive(d directive) error {
	arity := func(lo, hi int) error {
		if len(d.args) < lo || len(d.args) > hi {
			if lo == hi {
				return fmt.Errorf("takes %d arguments", lo)
			}
			return fmt.Errorf("takes %d to %d arguments", lo, hi)
		}
		return nil
	}
	became := func(format string, a ...any) {
		f.became = append(f.became, d.String()+" → "+fmt.Sprintf(format, a...))
	}
	switch d.name {
	case "more_set_headers":
		if err := arity(1, api.MaxSetHeaders); err != nil {
			return err
		}
		for _, a := range d.args {
			if strings.HasPrefix(a, "-") {
				return fmt.Errorf("option %s (by status or type) has no typed equivalent", a)
			}
			name, value, ok := strings.Cut(a, ":")
			if !ok {
				return fmt.Errorf("%q is not \"Name: value\"", a)
			}
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if err := headerTemplate(value); err != nil {
				return err
			}
			if value == "" {
				f.resp.Remove = append(f.resp.Remove, name)
				became("responseHeaders.remove %s", name)
				continue
			}
			f.resp.Set = append(f.resp.Set, api.Header{Name: name, Value: value})
			became("responseHeaders.set %s: %s", name, value)
		}
	case "more_clear_headers", "proxy_hide_header":
		if err := arity(1, api.MaxSetHeaders); err != nil {
			return err
		}
		if d.name == "proxy_hide_header" && len(d.args) != 1 {
			return errors.New("takes 1 argument")
		}
		for _, a := range d.args {
			if strings.HasPrefix(a, "-") || strings.Contains(a, "*") {
				return fmt.Errorf("%s: options and wildcards have no typed equivalent", a)
			}
			f.resp.Remove = append(f.resp.Remove, a)
			became("responseHeaders.remove %s", a)
		}
	case "add_header":
		if err := arity(2, 3); err != nil {
			return err
		}
		if len(d.args) == 3 && d.args[2] != "always" {
			return fmt.Errorf("third argument %q is not always", d.args[2])
		}
		if d.args[1] == "$upstream_cache_status" {
			f.statusHeader = d.args[0]
			became("cache.statusHeader %s", d.args[0])
			return nil
		}
		if err := headerTemplate(d.args[1]); err != nil {
			return err
		}
		f.resp.Add = append(f.resp.Add, api.Header{Name: d.args[0], Value: d.args[1]})
		became("responseHeaders.add %s: %s (on every answer)", d.args[0], d.args[1])
	case "proxy_set_header":
		if err := arity(2, 2); err != nil {
			return err
		}
		if slices.Contains(defaultRequestHeaders[strings.ToLower(d.args[0])], d.args[1]) {
			if strings.HasPrefix(strings.ToLower(d.args[0]), "x-forwarded-") {
				// Proxy-wide, as ingress-nginx's ConfigMap had it: what the proxy sees, or
				// what the client sent with useForwardedHeaders.
				became("nothing: restyplane sends %s itself, as settings' useForwardedHeaders says", d.args[0])
				return nil
			}
			became("nothing: restyplane sends %s this way already", d.args[0])
			return nil
		}
		if d.args[1] == "" {
			f.req.Remove = append(f.req.Remove, d.args[0])
			became("requestHeaders.remove %s", d.args[0])
			return nil
		}
		if err := headerTemplate(d.args[1]); err != nil {
			return err
		}
		f.req.Set = append(f.req.Set, api.Header{Name: d.args[0], Value: d.args[1]})
		became("requestHeaders.set %s: %s", d.args[0], d.args[1])
	case "expires":
		if err := arity(1, 1); err != nil {
			return err
		}
		f.expires = d.args[0]
		became("expires %s", d.args[0])
	case "server_tokens":
		if err := arity(1, 1); err != nil {
			return err
		}
		if d.args[0] != "off" {
			return errors.New("restyplane never sends nginx's version; only off is translated")
		}
		became("nothing: restyplane never sends nginx's version")
	case "return", "deny", "rewrite":
		return f.answer(d, became)
	case "proxy_buffer_size", "client_body_buffer_size", "client_max_body_size", "proxy_buffers",
		"proxy_buffering", "proxy_request_buffering", "proxy_connect_timeout", "proxy_read_timeout", "proxy_send_timeout":
		return f.proxyDirective(d, became)
	default:
		if strings.HasPrefix(d.name, "proxy_cache") || d.name == "proxy_no_cache" {
			return f.cacheDirective(d, became)
		}
		if why, ok := noTranslation[d.name]; ok {
			return fmt.Errorf("has no typed equivalent: %s", why)
		}
		return errors.New("unknown directive: it has no typed equivalent in restyplane")
	}
	return nil
}

// headerTemplate checks a header value a snippet sets: text, and variables of
// api.HeaderVariables, which the proxy fills in as nginx would; any other variable is
// refused, naming it.
func headerTemplate(v string) error {
	for i := strings.IndexByte(v, '$'); i >= 0; {
		name := variableRe.FindString(v[i:])
		if _, ok := api.HeaderVariables[name[1:]]; !ok {
			return fmt.Errorf("the value names %s, which is not one of the variables a header may carry (%s)", name, headerVariableList())
		}
		next := strings.IndexByte(v[i+len(name):], '$')
		if next < 0 {
			break
		}
		i += len(name) + next
	}
	return nil
}

// headerVariableList names api.HeaderVariables for messages.
func headerVariableList() string {
	names := make([]string, 0, len(api.HeaderVariables))
	for n := range api.HeaderVariables {
		names = append(names, "$"+n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// headerValue refuses a value with a variable where nothing is expanded: fixed answers
// and redirects are sent as written.
func headerValue(v string) error {
	if i := strings.IndexByte(v, '$'); i >= 0 {
		name := variableRe.FindString(v[i:])
		return fmt.Errorf("the value holds the variable %s, and header values are sent as written (nothing is expanded)", name)
	}
	return nil
}

var variableRe = regexp.MustCompile(`^\$[A-Za-z0-9_]*`)

// answer translates return, deny and rewrite ... redirect|permanent, which make a
// location answer itself.
func (f *snippetFields) answer(d directive, became func(string, ...any)) error {
	if f.answersItself() {
		return errors.New("the location already answers by an earlier directive")
	}
	switch d.name {
	case "deny":
		if len(d.args) != 1 || d.args[0] != "all" {
			return errors.New("only deny all is translated (a fixed 403); for addresses use the denylist-source-range annotation")
		}
		f.deny = true
		became("deny (403)")
	case "return":
		if len(d.args) < 1 || len(d.args) > 2 {
			return errors.New("takes 1 or 2 arguments")
		}
		code, err := strconv.Atoi(d.args[0])
		if err != nil {
			if len(d.args) == 1 && (strings.HasPrefix(d.args[0], "http://") || strings.HasPrefix(d.args[0], "https://")) {
				f.redirect = &api.Redirect{URL: d.args[0], Code: 302}
				became("redirect 302 %s", d.args[0])
				return nil
			}
			return fmt.Errorf("%q is not a status code", d.args[0])
		}
		switch code {
		case 301, 302, 303, 307, 308:
			if len(d.args) != 2 {
				return errors.New("a redirect needs its URL")
			}
			if err := headerValue(d.args[1]); err != nil {
				return fmt.Errorf("the URL holds a variable, and a redirect is sent to a fixed URL: %w", err)
			}
			f.redirect = &api.Redirect{URL: d.args[1], Code: code}
			became("redirect %d %s", code, d.args[1])
		default:
			f.ret = &api.Return{Code: code}
			if len(d.args) == 2 {
				if err := headerValue(d.args[1]); err != nil {
					return fmt.Errorf("the body holds a variable, and a fixed answer is sent as written: %w", err)
				}
				f.ret.Body = d.args[1]
			}
			became("return %d", code)
		}
	case "rewrite":
		if len(d.args) != 3 || (d.args[2] != "redirect" && d.args[2] != "permanent") {
			return errors.New("only rewrite <regex> <URL> redirect|permanent is translated, as a redirect")
		}
		if !matchesEverything(d.args[0]) {
			return errors.New("a rewrite of some paths only is translated in a server-snippet's location or as rewrite-target; here it would redirect the whole location")
		}
		if strings.Contains(d.args[1], "$") {
			return errors.New("the replacement holds a variable or capture, and a redirect of the whole location is sent to a fixed URL")
		}
		code := 302
		if d.args[2] == "permanent" {
			code = 301
		}
		f.redirect = &api.Redirect{URL: strings.TrimSuffix(d.args[1], "?"), Code: code}
		became("redirect %d %s", code, f.redirect.URL)
	}
	return nil
}

// matchesEverything reports whether a rewrite's regex matches every path.
func matchesEverything(re string) bool {
	switch re {
	case "^", "^(.*)$", "^/(.*)$", "^/?(.*)$", "^(.*)", "^/(.*)", ".*", "^.*$", "(.*)":
		return true
	}
	return false
}

// proxyDirective translates buffer sizes, body limits and timeouts.
func (f *snippetFields) proxyDirective(d directive, became func(string, ...any)) error {
	want := 1
	if d.name == "proxy_buffers" {
		want = 2
	}
	if len(d.args) != want {
		return fmt.Errorf("takes %d argument(s)", want)
	}
	v := d.args[0]
	switch d.name {
	case "proxy_buffer_size":
		if f.proxy.BufferSize != "" && f.proxy.BufferSize != v {
			return errors.New("restyplane's bufferSize is one size for the header buffer and the body buffers, and proxy_buffers names another")
		}
		f.proxy.BufferSize = v
		became("proxy.bufferSize %s", v)
	case "proxy_buffers":
		n, err := strconv.Atoi(d.args[0])
		if err != nil {
			return fmt.Errorf("%q is not a number of buffers", d.args[0])
		}
		if f.proxy.BufferSize != "" && f.proxy.BufferSize != d.args[1] {
			return errors.New("restyplane's bufferSize is one size for the header buffer and the body buffers, and proxy_buffer_size names another")
		}
		f.proxy.BuffersNumber, f.proxy.BufferSize = n, d.args[1]
		became("proxy.buffersNumber %d, proxy.bufferSize %s", n, d.args[1])
	case "client_body_buffer_size":
		f.proxy.ClientBodyBufferSize = v
		became("proxy.clientBodyBufferSize %s", v)
	case "client_max_body_size":
		f.proxy.BodySize = v
		became("proxy.bodySize %s", v)
	case "proxy_buffering":
		f.proxy.Buffering = v
		became("proxy.buffering %s", v)
	case "proxy_request_buffering":
		f.proxy.RequestBuffering = v
		became("proxy.requestBuffering %s", v)
	default:
		if _, err := strconv.Atoi(v); err == nil {
			v += "s" // nginx's unit is the second
		}
		if err := api.ValidDuration(d.name, v); err != nil {
			return err
		}
		dst := map[string]*string{"proxy_connect_timeout": &f.timeouts.Connect, "proxy_read_timeout": &f.timeouts.Read,
			"proxy_send_timeout": &f.timeouts.Send}[d.name]
		*dst = v
		became("timeouts.%s %s", strings.TrimSuffix(strings.TrimPrefix(d.name, "proxy_"), "_timeout"), v)
	}
	return nil
}

// cacheDirective translates the proxy_cache family into the location's cache policy.
func (f *snippetFields) cacheDirective(d directive, became func(string, ...any)) error {
	if d.name != "proxy_cache" && f.cache == nil {
		f.cache = &api.CachePolicy{}
	}
	c := f.cache
	switch d.name {
	case "proxy_cache":
		if len(d.args) != 1 {
			return errors.New("takes 1 argument")
		}
		if d.args[0] == "off" {
			became("nothing: no cache is the default")
			return nil
		}
		if strings.Contains(d.args[0], "$") {
			return errors.New("the zone is named by a variable")
		}
		if f.cache == nil {
			f.cache = &api.CachePolicy{}
		}
		became("cache (restyplane's response cache, sized by the settings' cacheZoneSize and cacheMaxSize; zone %s is not needed)", d.args[0])
	case "proxy_cache_valid":
		if len(d.args) < 1 {
			return errors.New("needs a duration")
		}
		dur := d.args[len(d.args)-1]
		v := api.CacheValid{Duration: dur}
		codes := d.args[:len(d.args)-1]
		if len(codes) == 0 {
			v.Codes = []int{200, 301, 302} // nginx's default
		}
		for _, s := range codes {
			if s == "any" && len(codes) == 1 {
				continue
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("%q is not a status code", s)
			}
			v.Codes = append(v.Codes, n)
		}
		c.Valid = append(c.Valid, v)
		became("cache.valid %v for %s", v.Codes, dur)
	case "proxy_cache_key":
		if len(d.args) != 1 {
			return errors.New("takes 1 argument")
		}
		key, err := cacheKey(d.args[0])
		if err != nil {
			return err
		}
		c.Key = key
		became("cache.key %s", strings.Join(key, ","))
	case "proxy_cache_use_stale":
		if len(d.args) == 1 && d.args[0] == "off" {
			became("nothing: no stale answers is the default")
			return nil
		}
		c.UseStale = append(c.UseStale, d.args...)
		became("cache.useStale %s", strings.Join(d.args, ","))
	case "proxy_cache_lock":
		if len(d.args) != 1 || (d.args[0] != "on" && d.args[0] != "off") {
			return errors.New("takes on or off")
		}
		c.Lock = d.args[0] == "on"
		became("cache.lock %t", c.Lock)
	case "proxy_cache_bypass", "proxy_no_cache":
		for _, a := range d.args {
			if err := api.ValidBypassVariable(d.name, a); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
			if !slices.Contains(c.Bypass, a) {
				c.Bypass = append(c.Bypass, a)
			}
		}
		became("cache.bypass %s (neither answered from nor stored in the cache)", strings.Join(d.args, ","))
	case "proxy_cache_methods":
		for _, a := range d.args {
			if a != "GET" && a != "HEAD" {
				return errors.New("only GET and HEAD answers are cached")
			}
		}
		became("nothing: GET and HEAD are what is cached")
	default:
		return errors.New("has no typed equivalent in the cache policy")
	}
	return nil
}

// cacheKey splits a cache key into its variables, each of api.CacheKeyVariables; any
// other text in it is refused.
func cacheKey(s string) ([]string, error) {
	var out []string
	for s != "" {
		v := variableRe.FindString(s)
		if v == "" || v == "$" {
			return nil, fmt.Errorf("the key holds %q besides variables; only variables of the fixed list are translated", s)
		}
		if !slices.Contains(api.CacheKeyVariables, v) {
			return nil, fmt.Errorf("the key's variable %s is not one of %s", v, strings.Join(api.CacheKeyVariables, ", "))
		}
		out = append(out, v)
		s = s[len(v):]
	}
	return out, nil
}

// location translates a server-snippet's location block into a location of its own,
// which answers itself: return, deny all or a redirect, with response headers.
func (f *snippetFields) location(d directive) error {
	l := api.Location{}
	switch {
	case len(d.args) == 1:
		l.Path, l.Match = d.args[0], api.MatchPrefix
	case len(d.args) == 2 && d.args[0] == "=":
		l.Path, l.Match = d.args[1], api.MatchExact
	case len(d.args) == 2 && d.args[0] == "^~":
		l.Path, l.Match = d.args[1], api.MatchPrefix
	case len(d.args) == 2 && d.args[0] == "~":
		l.Path, l.Match = d.args[1], api.MatchRegex
	case len(d.args) == 2 && d.args[0] == "~*":
		return errors.New("a case-insensitive regex location (~*) is not translated")
	default:
		return errors.New("a location takes a path, or a modifier (=, ^~, ~) and a path")
	}
	if d.block == nil {
		return errors.New("a location needs a block")
	}
	inner := &snippetFields{}
	for _, x := range d.block {
		switch x.name {
		case "return", "deny", "rewrite", "more_set_headers", "more_clear_headers", "add_header":
		default:
			return fmt.Errorf("directive %s: a location of a server-snippet is translated only when it answers itself (return, deny all, a redirect), with response headers", x.name)
		}
		if x.name == "rewrite" && len(x.args) == 3 && !matchesEverything(x.args[0]) {
			return fmt.Errorf("%s: a rewrite inside a location is translated when it redirects the whole location", x)
		}
		if err := inner.directive(x); err != nil {
			return fmt.Errorf("%s: %w", x, err)
		}
	}
	if !inner.answersItself() {
		return errors.New("the location does not answer itself (return, deny all or a redirect), and would need a backend")
	}
	inner.apply(&l)
	l.Backend = ""
	if inner.statusHeader != "" {
		return errors.New("a location that answers itself has no cache status")
	}
	for _, b := range inner.became {
		f.became = append(f.became, "location "+strings.Join(d.args, " ")+": "+b)
	}
	f.locations = append(f.locations, l)
	return nil
}
