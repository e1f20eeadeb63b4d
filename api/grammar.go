package api

import (
	"net/netip"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The grammars below are deliberately narrower than what nginx would parse. Every value
// that passes one is rendered into nginx.conf or handed to Lua, so none may contain
// whitespace, quotes, braces, semicolons, '#', '$' (outside variable names) or control
// characters: those are how a value becomes a directive.
var (
	nameRe     = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]{0,126}[a-z0-9])?$`)
	labelRe    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	durationRe = regexp.MustCompile(`^[0-9]{1,6}(ms|s|m|h)$`)
	sizeRe     = regexp.MustCompile(`^[0-9]{1,6}[km]?$`)
	headerRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`)
	cookieRe   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	variableRe = regexp.MustCompile(`^\$[a-z_][a-z0-9_]{0,63}$`)
	// pathRe admits the characters of an RFC 3986 path except those nginx.conf treats as
	// syntax or as variables.
	pathRe = regexp.MustCompile(`^/[A-Za-z0-9._~!&()*+,=:@%/-]*$`)
	mimeRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]{0,62}/[a-z0-9*][a-z0-9.+-]{0,62}$`)
)

// ValidName checks an object name: lowercase DNS-label-like, at most 128 characters.
func ValidName(field, s string) error {
	if !nameRe.MatchString(s) {
		return Invalid(field, "must be 1-128 lowercase letters, digits, '.', '_' or '-', starting and ending with a letter or digit")
	}
	return nil
}

// CatchAllHostname is the hostname of the server that answers requests no other server
// names: what an Ingress rule without a host, or an Ingress's default backend, routes.
// The renderer gives it nginx's default_server; it never matches a Host header itself.
const CatchAllHostname = "_"

// ValidHostname checks a server name as nginx accepts it: a DNS name, optionally with a
// leading "*." or a trailing ".*" wildcard label, or CatchAllHostname. Regex server names
// are not offered.
func ValidHostname(field, s string) error {
	if s == CatchAllHostname {
		return nil
	}
	h := strings.ToLower(s)
	if h != s {
		return Invalid(field, "hostname %q must be lowercase", printable(s))
	}
	h = strings.TrimPrefix(h, "*.")
	if h != s && strings.HasSuffix(h, ".*") {
		return Invalid(field, "hostname may have one wildcard, at the start or the end")
	}
	h = strings.TrimSuffix(h, ".*")
	if len(h) == 0 || len(h) > 253 {
		return Invalid(field, "hostname must be 1-253 characters")
	}
	for _, label := range strings.Split(h, ".") {
		if !labelRe.MatchString(label) {
			return Invalid(field, "hostname %q: each label must be 1-63 letters, digits or '-', not starting or ending with '-' (wildcards only as a whole first or last label)", printable(s))
		}
	}
	return nil
}

// ValidAddress checks an endpoint address: an IPv4 or IPv6 literal or a DNS name.
func ValidAddress(field, s string) error {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return Invalid(field, "address must not carry an IPv6 zone")
		}
		return nil
	}
	if strings.Contains(s, "*") || s == CatchAllHostname || ValidHostname(field, s) != nil {
		return Invalid(field, "address %q is neither an IP address nor a DNS name", printable(s))
	}
	return nil
}

// ValidPort checks a TCP port.
func ValidPort(field string, p int) error {
	if p < 1 || p > 65535 {
		return Invalid(field, "port must be 1-65535, got %d", p)
	}
	return nil
}

// ValidPath checks a URI path for a prefix or exact location, or a rewrite target.
func ValidPath(field, s string) error {
	if len(s) > 1024 || !pathRe.MatchString(s) {
		return Invalid(field, "path must start with '/' and hold only URI path characters (no spaces, quotes, braces, ';', '#', '$' or control characters), at most 1024")
	}
	return nil
}

// ValidDuration checks a duration in nginx's notation: a number and ms, s, m or h.
func ValidDuration(field, s string) error {
	if !durationRe.MatchString(s) {
		return Invalid(field, "duration must be a number followed by ms, s, m or h, like 500ms or 60s")
	}
	return nil
}

// ValidSize checks a size in nginx's notation: a number, optionally followed by k or m.
func ValidSize(field, s string) error {
	if !sizeRe.MatchString(s) {
		return Invalid(field, "size must be a number optionally followed by k or m, like 1m")
	}
	return nil
}

// ValidHeaderName checks an HTTP header name (letters, digits and '-').
func ValidHeaderName(field, s string) error {
	if !headerRe.MatchString(s) {
		return Invalid(field, "header name must be 1-64 letters, digits or '-', starting with a letter or digit")
	}
	return nil
}

// ValidHeaderValue checks a header value: printable ASCII without quotes, backslashes,
// '$', '{', '}', ';' or '#', at most 1024 characters. Spaces are allowed inside.
func ValidHeaderValue(field, s string) error {
	if len(s) > 1024 {
		return Invalid(field, "header value must be at most 1024 characters")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || strings.IndexByte("\"'\\${};#", c) >= 0 {
			return Invalid(field, "header value must be printable ASCII without quotes, backslashes, '$', braces, ';' or '#'")
		}
	}
	if strings.TrimSpace(s) != s {
		return Invalid(field, "header value must not start or end with a space")
	}
	return nil
}

// ValidCookieName checks a cookie name.
func ValidCookieName(field, s string) error {
	if !cookieRe.MatchString(s) {
		return Invalid(field, "cookie name must be 1-64 letters, digits, '_' or '-'")
	}
	return nil
}

// ValidVariable checks an nginx variable name such as $remote_addr.
func ValidVariable(field, s string) error {
	if !variableRe.MatchString(s) {
		return Invalid(field, "must be one nginx variable like $remote_addr or $cookie_user")
	}
	return nil
}

// ValidMIME checks a MIME type such as application/json.
func ValidMIME(field, s string) error {
	if !mimeRe.MatchString(s) {
		return Invalid(field, "must be a MIME type like text/css")
	}
	return nil
}

// ValidText checks free text that is stored but never rendered (messages, subjects): valid
// UTF-8, no control characters other than newline and tab, at most max bytes.
func ValidText(field, s string, max int) error {
	if len(s) > max {
		return Invalid(field, "must be at most %d bytes", max)
	}
	if !utf8.ValidString(s) {
		return Invalid(field, "must be valid UTF-8")
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return Invalid(field, "must not contain control characters")
		}
	}
	return nil
}

// printable quotes s for an error message without echoing control characters or huge input.
func printable(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
}
