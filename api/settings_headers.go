package api

import (
	"fmt"
	"sort"
	"strings"
)

// ProxyHeader is a request header that settings set on every proxied request. Its value
// is literal text, in which each '$' starts one of ProxyHeaderVariables.
type ProxyHeader struct {
	Name  string `json:"name" example:"X-Client-Port"`
	Value string `json:"value" example:"$remote_port"`
}

// MaxProxyHeaders bounds settings' proxySetHeaders.
const MaxProxyHeaders = 50

// ProxyHeaderVariables are the nginx variables a proxySetHeaders value may name: the one
// list every typed header shares, HeaderVariables.
var ProxyHeaderVariables = HeaderVariables

// ProxyHeaderVariableNames lists ProxyHeaderVariables with their '$', sorted.
func ProxyHeaderVariableNames() []string {
	names := make([]string, 0, len(ProxyHeaderVariables))
	for n := range ProxyHeaderVariables {
		names = append(names, "$"+n)
	}
	sort.Strings(names)
	return names
}

// proxyHeaderOwned are the headers each location decides itself: Host is the upstream's
// (upstreamHost) or the request's.
var proxyHeaderOwned = []string{"Host"}

// ValidProxyHeaderValue checks a proxySetHeaders value: literal text of ValidFieldValue's
// grammar, in which each '$' starts one of ProxyHeaderVariables (braces, as in ${host},
// are refused too).
func ValidProxyHeaderValue(field, s string) error {
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			lit.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && isVarChar(s[j]) {
			j++
		}
		if _, ok := ProxyHeaderVariables[s[i+1:j]]; !ok {
			return Invalid(field, "$%s is not a variable a header may name; it may name %s", printable(s[i+1:j]),
				strings.Join(ProxyHeaderVariableNames(), ", "))
		}
		lit.WriteByte('x') // a variable stands where any literal character may
		i = j - 1
	}
	return ValidFieldValue(field, lit.String())
}

// validateProxyHeaders checks settings' proxySetHeaders: at most MaxProxyHeaders, valid
// names each set once, not a header a location owns, and valid values.
func validateProxyHeaders(field string, hs []ProxyHeader) error {
	if len(hs) > MaxProxyHeaders {
		return Invalid(field, "at most %d headers", MaxProxyHeaders)
	}
	seen := map[string]bool{}
	for i, h := range hs {
		f := fmt.Sprintf("%s[%d]", field, i)
		if err := ValidFieldName(f+".name", h.Name); err != nil {
			return err
		}
		for _, o := range proxyHeaderOwned {
			if strings.EqualFold(h.Name, o) {
				return Invalid(f+".name", "the %s header is each location's (its upstream host, or the request's)", o)
			}
		}
		if seen[strings.ToLower(h.Name)] {
			return Invalid(f+".name", "header %s is set twice", h.Name)
		}
		seen[strings.ToLower(h.Name)] = true
		if err := ValidProxyHeaderValue(f+".value", h.Value); err != nil {
			return err
		}
	}
	return nil
}
