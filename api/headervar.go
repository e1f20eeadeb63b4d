package api

import (
	"sort"
	"strings"
)

// HeaderVariables are the nginx variables a header value may name, with what each holds:
// values the proxy computes for every request, which headers written in ingress-nginx
// snippets commonly carry. Nothing else after a '$' is accepted, so a header can only
// ever read these values, never run text, and none of them holds a line break. It is the
// one list for every typed header that takes variables: a location's request and
// response headers and the headers of an external auth's subrequest.
var HeaderVariables = map[string]string{
	"request_id":                "a unique id of the request, 32 hex digits",
	"req_id":                    "the client's X-Request-ID, or $request_id when it sent none (ingress-nginx's $req_id)",
	"remote_addr":               "the client's address",
	"proxy_add_x_forwarded_for": "the client's X-Forwarded-For with its address appended",
	"scheme":                    "http or https, as the client reached the proxy",
	"host":                      "the request's host name, lowercased, without the port",
	"http_host":                 "the request's Host header as the client sent it",
	"server_port":               "the port the request came in on",
	"request_method":            "the request's method",
	"request_uri":               "the original request's path and query, as sent",
	"ssl_protocol":              "the TLS protocol of the client's connection, empty over plain HTTP",
	"ssl_client_verify":         "SUCCESS, NONE or FAILED:<reason>: the result of the client certificate's verification",
	"ssl_client_s_dn":           "the client certificate's subject DN",
	"ssl_client_i_dn":           "the client certificate's issuer DN",
	"ssl_client_serial":         "the client certificate's serial number",
	"ssl_client_fingerprint":    "the client certificate's SHA1 fingerprint",
	"ssl_client_escaped_cert":   "the client certificate, PEM, URL-escaped",
}

// HeaderValueVariables returns the variables a header value names, in order, and an error
// naming the first '$' that does not start one of HeaderVariables (braces, as in ${host},
// included). nginx reads a variable's name as long as letters, digits and '_' follow, so
// "$hostx" is the variable hostx, which is refused.
func HeaderValueVariables(field, s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(s) && isVarChar(s[j]) {
			j++
		}
		name := s[i+1 : j]
		if _, ok := HeaderVariables[name]; !ok {
			return nil, Invalid(field, "$%s is not a variable a header value may name; it may name %s", name, headerVariableNames())
		}
		out = append(out, name)
		i = j - 1
	}
	return out, nil
}

// ValidHeaderTemplate checks a header value that may name HeaderVariables: the value of
// ValidFieldValue's grammar once each variable stands for a word.
func ValidHeaderTemplate(field, s string) error {
	if _, err := HeaderValueVariables(field, s); err != nil {
		return err
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && isVarChar(s[j]) {
			j++
		}
		b.WriteByte('x')
		i = j - 1
	}
	if len(s) > 1024 || !fieldValueRe.MatchString(b.String()) {
		return Invalid(field, "header value must be 1-1024 characters of visible ASCII without '\"' or '\\', single spaces inside only, a '$' only before a variable of the fixed list")
	}
	return nil
}

// headerVariableNames lists HeaderVariables for messages.
func headerVariableNames() string {
	names := make([]string, 0, len(HeaderVariables))
	for n := range HeaderVariables {
		names = append(names, "$"+n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
