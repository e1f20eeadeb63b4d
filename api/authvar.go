package api

import (
	"sort"
	"strings"
)

// AuthVariables are the variables an external auth's URL and sign-in URL may name, as
// ingress-nginx documents them for auth-url and auth-signin and its users' manifests
// write them, with what each stands for. Nothing else after a '$' is accepted: the proxy
// defines each of them itself, so a URL can only ever read these values, never run text.
var AuthVariables = map[string]string{
	"host":                "the request's host name, lowercased, without the port",
	"http_host":           "the request's Host header as the client sent it",
	"best_http_host":      "as $http_host (ingress-nginx's name)",
	"scheme":              "http or https, as the client reached the proxy",
	"pass_access_scheme":  "as $scheme (ingress-nginx's name)",
	"request_uri":         "the original request's path and query, as sent",
	"escaped_request_uri": "the original request's path and query, URI-escaped (for a query parameter such as rd)",
}

// authHostVariables are the variables that may stand for a sign-in URL's host: the
// client is sent back to the host it asked for.
var authHostVariables = map[string]bool{"host": true, "http_host": true, "best_http_host": true}

// authVariableNames lists AuthVariables for messages.
func authVariableNames() string {
	names := make([]string, 0, len(AuthVariables))
	for n := range AuthVariables {
		names = append(names, "$"+n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// isVarChar is a character of an nginx variable name: nginx reads a name after '$' as
// long as these follow, so a listed name followed by one of them is another variable.
func isVarChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// AuthURLVariables returns the variables s names, in order, and an error naming the
// first '$' that does not start one of AuthVariables (braces, as in ${host}, included).
func AuthURLVariables(field, s string) ([]string, error) {
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
		if _, ok := AuthVariables[name]; !ok {
			return nil, Invalid(field, "$%s is not a variable an auth URL may name; it may name %s", name, authVariableNames())
		}
		out = append(out, name)
		i = j - 1
	}
	return out, nil
}

// withoutAuthVariables replaces each variable of s (checked by AuthURLVariables) with
// "x", which every part of a URL's grammar takes, so that the rest of s is checked as
// literal text.
func withoutAuthVariables(s string) string {
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
	return b.String()
}

// ValidExternalAuthURL checks an external auth service's URL: a URL of ValidAuthURL's
// grammar, with a query, whose path and query may name AuthVariables. Its host may not be
// a variable: the proxy resolves the auth service's name when it renders the config,
// under the address rules of backends (never loopback, link-local or metadata), and a
// host taken from the request would let each client's Host header choose where the proxy
// sends its subrequest, past those rules. Name the auth Service instead.
func ValidExternalAuthURL(field, s string) error {
	if len(s) > 2048 {
		return Invalid(field, "URL must be at most 2048 characters")
	}
	if _, err := AuthURLVariables(field, s); err != nil {
		return err
	}
	if strings.Contains(authURLHost(s), "$") {
		return Invalid(field, "the auth service's host may not be a variable (%s): the proxy resolves it when it renders the config, under the address rules of backends, and a host the client's Host header chose could reach what those rules keep out; name the auth service (its Service's DNS name), and put variables in the path or query", authURLHost(s))
	}
	return ValidAuthURL(field, withoutAuthVariables(s), true)
}

// ValidSigninURL checks a sign-in URL: as ValidExternalAuthURL, except that its host may
// also be $host, $http_host or $best_http_host, as in oauth2-proxy's
// https://$host/oauth2/start?rd=$escaped_request_uri: the proxy only redirects the client
// there, and sends it back to the host it asked for.
func ValidSigninURL(field, s string) error {
	if len(s) > 2048 {
		return Invalid(field, "URL must be at most 2048 characters")
	}
	if _, err := AuthURLVariables(field, s); err != nil {
		return err
	}
	if h := authURLHost(s); strings.Contains(h, "$") {
		if !authHostVariables[strings.TrimPrefix(h, "$")] {
			return Invalid(field, "a sign-in URL's host may be a host name or one of $host, $http_host, $best_http_host, not %q", h)
		}
	}
	return ValidAuthURL(field, withoutAuthVariables(s), true)
}

// authURLHost is the host and port of a URL: what follows "://" up to the path or query.
func authURLHost(s string) string {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
