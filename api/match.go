package api

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RequestMatch restricts a location to requests that also match these conditions, as
// Gateway API's HTTPRouteMatch does beyond the path: every condition given must hold.
// Among the locations whose paths match a request, one with conditions that do not hold is
// passed over for the next in precedence (the order of the server's locations), down to
// 404 when none is left.
type RequestMatch struct {
	// Method is the request's method, one of Methods.
	Method string `json:"method,omitempty" enums:"GET,HEAD,POST,PUT,DELETE,CONNECT,OPTIONS,TRACE,PATCH" example:"GET"`
	// Headers must all match; names are case-insensitive, each named once.
	Headers []ValueMatch `json:"headers,omitempty"`
	// Query parameters must all match; names are exact (case-sensitive), each named once.
	// A parameter given twice in a request is matched by its first value.
	Query []ValueMatch `json:"query,omitempty"`
	// Scheme is the request's scheme, http or https: a Gateway API route attached to a
	// Gateway's HTTP listener alone, or to its HTTPS listener alone, answers on that
	// scheme only, though one server holds the host on both.
	Scheme string `json:"scheme,omitempty" enums:"http,https" example:"https"`
}

// Request schemes a condition may name.
const (
	SchemeHTTP  = "http"
	SchemeHTTPS = "https"
)

// ValueMatch is one header or query parameter condition.
type ValueMatch struct {
	Name string `json:"name" example:"X-Version"`
	// Type is exact (the value as written, case-sensitive) or regex (a PCRE regex that
	// the whole value must match); exact if empty.
	Type  string `json:"type,omitempty" enums:"exact,regex" example:"exact"`
	Value string `json:"value" example:"2"`
}

// Value match types.
const (
	ValueExact = "exact"
	ValueRegex = "regex"
)

// Methods are the request methods a condition may name.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// MaxMatchValues bounds the header conditions and the query conditions of one location,
// as Gateway API bounds them.
const MaxMatchValues = 16

var (
	// matchHeaderRe is a header name nginx passes on: it ignores a request header whose
	// name holds anything but letters, digits and '-', so a condition on such a name could
	// never hold.
	matchHeaderRe = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)
	// queryNameRe is a query parameter name: RFC 9110 token characters but '$', '&',
	// '%', '+' and '#', which either end or change a name in a query string.
	queryNameRe = regexp.MustCompile("^[A-Za-z0-9!'*.^_`|~-]{1,64}$")
)

// validate checks the conditions: a method from Methods, at most MaxMatchValues headers
// and query parameters, each named once, with values of the strict grammars.
func (m *RequestMatch) validate() error {
	if m == nil {
		return nil
	}
	if m.Method == "" && len(m.Headers) == 0 && len(m.Query) == 0 && m.Scheme == "" {
		return Invalid("when", "when needs a method, a header, a query or a scheme condition; leave it out to match every request")
	}
	if m.Scheme != "" && m.Scheme != SchemeHTTP && m.Scheme != SchemeHTTPS {
		return Invalid("when.scheme", "scheme must be http or https")
	}
	if m.Method != "" && !slices.Contains(Methods, m.Method) {
		return Invalid("when.method", "method must be one of %s", strings.Join(Methods, ", "))
	}
	if len(m.Headers) > MaxMatchValues || len(m.Query) > MaxMatchValues {
		return Invalid("when", "at most %d header and %d query conditions", MaxMatchValues, MaxMatchValues)
	}
	seen := map[string]bool{}
	for i, h := range m.Headers {
		f := fmt.Sprintf("when.headers[%d]", i)
		if !tokenRe.MatchString(h.Name) {
			return Invalid(f+".name", "header name must be an RFC 9110 token, at most 64")
		}
		if !matchHeaderRe.MatchString(h.Name) {
			return Invalid(f+".name", "nginx ignores request headers whose names hold other than letters, digits and '-': a condition on %q could never hold", h.Name)
		}
		if k := strings.ToLower(h.Name); seen[k] {
			return Invalid(f+".name", "header %s is named twice", h.Name)
		} else {
			seen[k] = true
		}
		if err := h.validateValue(f); err != nil {
			return err
		}
	}
	seen = map[string]bool{}
	for i, q := range m.Query {
		f := fmt.Sprintf("when.query[%d]", i)
		if !queryNameRe.MatchString(q.Name) {
			return Invalid(f+".name", "query parameter name must be 1-64 letters, digits or !'*.^_`|~-")
		}
		if seen[q.Name] {
			return Invalid(f+".name", "query parameter %s is named twice", q.Name)
		}
		seen[q.Name] = true
		if err := q.validateValue(f); err != nil {
			return err
		}
	}
	return nil
}

// validateValue checks an exact value as a header field value (visible ASCII without
// '"', '\' and '$') and a regex by the regex checks of locations.
func (v ValueMatch) validateValue(field string) error {
	switch v.Type {
	case "", ValueExact:
		return ValidFieldValue(field+".value", v.Value)
	case ValueRegex:
		return ValidValueRegex(field+".value", v.Value)
	}
	return Invalid(field+".type", "type must be exact or regex")
}

// typeOrDefault is the value match's type, exact if empty.
func (v ValueMatch) typeOrDefault() string {
	if v.Type == "" {
		return ValueExact
	}
	return v.Type
}

// Key is the conditions in a canonical form: equal conditions written in another order
// or case give the same key, so that Config.Check, and the renderer, see two locations
// claim the same requests. "" without conditions.
func (m *RequestMatch) Key() string {
	if m == nil {
		return ""
	}
	type cond struct{ N, T, V string }
	canon := func(list []ValueMatch, fold bool) []cond {
		out := make([]cond, len(list))
		for i, v := range list {
			out[i] = cond{v.Name, v.typeOrDefault(), v.Value}
			if fold {
				out[i].N = strings.ToLower(v.Name)
			}
		}
		slices.SortFunc(out, func(a, b cond) int { return strings.Compare(a.N, b.N) })
		return out
	}
	b, _ := json.Marshal([]any{m.Method, canon(m.Headers, true), canon(m.Query, false), m.Scheme}) // strings only: it cannot fail
	return string(b)
}

// ValidValueRegex checks a header or query value regex as ValidRegex checks a location's,
// but for the leading "/": the characters regexChars admits, escapes that mean the same in
// PCRE, star height 1 at most and no ambiguity, also once anchored as AnchoredRegex
// anchors it to hold the whole value.
func ValidValueRegex(field, s string) error {
	if len(s) > 1024 || !regexChars.MatchString(s) {
		return Invalid(field, "regex may hold letters, digits and regex punctuation only (no spaces, quotes, ';' or '#'; \\s matches a space), at most 1024")
	}
	if err := regexSafe(field, s); err != nil {
		return err
	}
	return regexSafe(field, AnchoredRegex(s))
}

// AnchoredRegex is a value regex that must match the whole value. \z, not $, since PCRE's
// $ also matches before a final newline. A group is added only around alternatives, so
// that the regex's own parts stay at the top, where the ambiguity check knows what ends
// the regex.
func AnchoredRegex(s string) string {
	p := reParser{s: s}
	if p.alt().op == reAlt {
		return `^(?:` + s + `)\z`
	}
	return `^` + s + `\z`
}
