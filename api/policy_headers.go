package api

import (
	"fmt"
	"regexp"
	"strings"
)

// HeaderFilter changes the headers of a location's requests to the backend or of its
// answers to the client, as Gateway API's RequestHeaderModifier and
// ResponseHeaderModifier do: Set replaces a header (or adds it when absent), Add appends a
// value to what the header holds, Remove drops it. Values are sent as written, except that
// a '$' starts one of HeaderVariables ($request_id, $remote_addr, $ssl_client_s_dn…),
// which the proxy fills in; a request header that is added to takes no variable.
type HeaderFilter struct {
	Set    []Header `json:"set,omitempty"`
	Add    []Header `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty" example:"X-Powered-By"`
}

var (
	// tokenRe is RFC 9110's token, which a field name is.
	tokenRe = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
	// fieldValueRe is a field value of visible ASCII and inner spaces; '"' and '\' are
	// left out, and '$' that nginx would expand, though nothing is expanded here.
	fieldValueRe = regexp.MustCompile(`^` + fieldChars + `+(?: ` + fieldChars + `+)*$`)
)

// fieldChars are the characters of a field value but the space.
const fieldChars = `[!#%&'()*+,./0-9:;<=>?@A-Z\[\]^_` + "`" + `a-z{|}~-]`

// framingHeaders carry the message's framing and connection, which nginx writes itself:
// changing them would desynchronize nginx and the peer (request smuggling) or be ignored.
var framingHeaders = []string{"Connection", "Content-Length", "Keep-Alive", "TE", "Trailer", "Transfer-Encoding", "Upgrade"}

// ValidFieldName checks a header field name: an RFC 9110 token of at most 64 characters
// that is not one of the framing headers nginx writes itself.
func ValidFieldName(field, s string) error {
	if !tokenRe.MatchString(s) {
		return Invalid(field, "header name must be an RFC 9110 token (letters, digits and !#$%%&'*+.^_`|~-), at most 64")
	}
	for _, f := range framingHeaders {
		if strings.EqualFold(s, f) {
			return Invalid(field, "header %s frames the message and is written by nginx itself", f)
		}
	}
	return nil
}

// ValidFieldValue checks a header field value: 1-1024 characters of visible ASCII but '"',
// '\' and '$', with single spaces between.
func ValidFieldValue(field, s string) error {
	if len(s) > 1024 || !fieldValueRe.MatchString(s) {
		return Invalid(field, "header value must be 1-1024 characters of visible ASCII without '\"', '\\' or '$', single spaces inside only")
	}
	return nil
}

// validate checks the filter: valid names and values, at most MaxSetHeaders of each list,
// and each name set or removed once (an added header may not be set or removed too).
// Set values may name HeaderVariables, and Add values too when addVars.
func (h *HeaderFilter) validate(field string, addVars bool) error {
	if h == nil {
		return nil
	}
	if len(h.Set) > MaxSetHeaders || len(h.Add) > MaxSetHeaders || len(h.Remove) > MaxSetHeaders {
		return Invalid(field, "at most %d headers in each of set, add and remove", MaxSetHeaders)
	}
	seen := map[string]string{}
	claim := func(f, name string) error {
		if err := ValidFieldName(f, name); err != nil {
			return err
		}
		k := strings.ToLower(name)
		if prev, ok := seen[k]; ok {
			return Invalid(f, "header %s is already named by %s", name, prev)
		}
		seen[k] = f
		return nil
	}
	for i, x := range h.Set {
		f := fmt.Sprintf("%s.set[%d]", field, i)
		if err := claim(f+".name", x.Name); err != nil {
			return err
		}
		if err := ValidHeaderTemplate(f+".value", x.Value); err != nil {
			return err
		}
	}
	for i, name := range h.Remove {
		if err := claim(fmt.Sprintf("%s.remove[%d]", field, i), name); err != nil {
			return err
		}
	}
	for i, x := range h.Add {
		f := fmt.Sprintf("%s.add[%d]", field, i)
		if err := ValidFieldName(f+".name", x.Name); err != nil {
			return err
		}
		if prev, ok := seen[strings.ToLower(x.Name)]; ok && !strings.Contains(prev, ".add[") {
			return Invalid(f+".name", "header %s is already named by %s", x.Name, prev)
		}
		seen[strings.ToLower(x.Name)] = f
		check := ValidFieldValue
		if addVars {
			check = ValidHeaderTemplate
		}
		if err := check(f+".value", x.Value); err != nil {
			return err
		}
	}
	return nil
}

// requestAddRe is the name of a request header a location adds to: the value the client
// sent is read from nginx's $http_<name> variable, which only such a name has.
var requestAddRe = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// validateHeaders checks the location's header filters, and that setHeaders and
// requestHeaders do not both name a header.
func (l *Location) validateHeaders() error {
	// A request header added to is a map's value at the http level (see the renderer),
	// which takes no variable; every other value goes to a directive that expands them.
	if err := l.RequestHeaders.validate("requestHeaders", false); err != nil {
		return err
	}
	if err := l.ResponseHeaders.validate("responseHeaders", true); err != nil {
		return err
	}
	if r := l.RequestHeaders; r != nil {
		for i, x := range r.Add {
			if !requestAddRe.MatchString(x.Name) {
				return Invalid(fmt.Sprintf("requestHeaders.add[%d].name", i), "a request header that is added to is named by letters, digits and '-' only")
			}
		}
		for _, s := range l.SetHeaders {
			for _, n := range r.names() {
				if strings.EqualFold(s.Name, n) {
					return Invalid("requestHeaders", "header %s is in setHeaders too", n)
				}
			}
		}
	}
	return nil
}

// names returns every header name the filter changes.
func (h *HeaderFilter) names() []string {
	var out []string
	for _, x := range h.Set {
		out = append(out, x.Name)
	}
	for _, x := range h.Add {
		out = append(out, x.Name)
	}
	return append(out, h.Remove...)
}
