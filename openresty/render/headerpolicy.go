package render

import (
	"fmt"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// headerAdd is a request header a location adds a value to: nginx's proxy_set_header
// replaces what the client sent, so the value sent is a map's, at the http level: the
// client's value, a comma and the added value, or the added value alone when the client
// sent none. Source is the client's header as an nginx variable, chosen here from a name
// of api's grammar (letters, digits and '-'), and Var the map's variable.
type headerAdd struct {
	Name, Value string
	Source, Var string
}

// returnView is a location's fixed answer.
type returnView struct {
	Code int
	Body string
}

// withHeaderFilters adds the location's header filters to its view: request headers set
// and removed (an empty proxy_set_header sends none), added to through a map, and the
// default headers they name dropped; response headers hidden from the upstream's answer
// (set and removed ones) and added (set and added ones) to every answer, errors included.
func withHeaderFilters(v *locationView, l *api.Location) {
	if r := l.RequestHeaders; r != nil {
		v.Headers = append(append([]api.Header(nil), v.Headers...), r.Set...)
		v.RemoveHeaders = r.Remove
		for _, a := range r.Add {
			v.AddHeaders = append(v.AddHeaders, headerAdd{Name: a.Name, Value: a.Value,
				Source: "$http_" + strings.ReplaceAll(strings.ToLower(a.Name), "-", "_")})
		}
		named := append(append([]string(nil), r.Remove...), func() []string {
			var n []string
			for _, h := range v.Headers {
				n = append(n, h.Name)
			}
			for _, a := range r.Add {
				n = append(n, a.Name)
			}
			return n
		}()...)
		var keep []defaultHeader
		for _, d := range v.DefaultHeaders {
			if !containsFold(named, d.Name) {
				keep = append(keep, d)
			}
		}
		v.DefaultHeaders = keep
	}
	if r := l.ResponseHeaders; r != nil {
		v.HideHeaders = append(append([]string(nil), r.Remove...), headerNames(r.Set)...)
		v.ResponseAdd = append(append([]api.Header(nil), r.Set...), r.Add...)
	}
	if r := l.Return; r != nil {
		v.Return = &returnView{Code: r.Code, Body: r.Body}
	}
	v.Deny = l.Deny
}

func headerNames(hs []api.Header) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name)
	}
	return out
}

func containsFold(names []string, s string) bool {
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return true
		}
	}
	return false
}

// headerAdds gives every request header add of the conf its map variable, one map per
// distinct header and value, numbered in the order the conf names them.
func (v *confView) headerAdds(sv *serverView) {
	for i := range sv.Locations {
		for j := range sv.Locations[i].AddHeaders {
			a := &sv.Locations[i].AddHeaders[j]
			for _, m := range v.HeaderAdds {
				if m.Source == a.Source && m.Value == a.Value {
					a.Var = m.Var
				}
			}
			if a.Var == "" {
				a.Var = fmt.Sprintf("$rp_header_add_%d", len(v.HeaderAdds))
				v.HeaderAdds = append(v.HeaderAdds, *a)
			}
		}
	}
}

// nameQuote quotes a header name. proxy_set_header, proxy_hide_header and add_header
// never expand a name, so the '$' of RFC 9110's token is written as it is; anything
// outside the token grammar is refused, a second wall behind api's.
func nameQuote(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+.^_`|~-", c) >= 0) {
			return "", fmt.Errorf("header name %q is not an RFC 9110 token", s)
		}
	}
	return quoteRaw(s)
}

// appendQuote quotes a request header add's map value: the client's value (source, an
// nginx variable chosen by the renderer), a comma, and the added value, in which nothing
// may expand.
func appendQuote(source, value string) (string, error) {
	if _, err := quote(value); err != nil {
		return "", err
	}
	return quoteRaw(source + "," + value)
}
