package render

import (
	"fmt"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// quote writes s as one double-quoted nginx token. Validation in api already keeps every
// value within a narrow grammar; quoting is the second wall, so that a value that slipped
// through can at worst be a wrong argument, never a new directive. A '$' is refused
// because most directives that take these values expand variables; regexQuote is the one
// exception.
func quote(s string) (string, error) {
	if strings.ContainsRune(s, '$') {
		return "", fmt.Errorf("value %q contains '$', which nginx would expand as a variable", s)
	}
	return quoteRaw(s)
}

// authURLQuote quotes an external auth's URL, in which nginx expands '$': every '$' must
// start a variable of api.AuthVariables, which the proxy defines, never another.
func authURLQuote(s string) (string, error) {
	if _, err := api.AuthURLVariables("url", s); err != nil {
		return "", fmt.Errorf("auth URL %q: %w", s, err)
	}
	return quoteRaw(s)
}

// regexQuote quotes a location regex. Location regexes are not variable-expanded, so '$'
// stays an anchor.
func regexQuote(s string) (string, error) {
	return quoteRaw(s)
}

// captureQuote quotes a rewrite replacement: s, in which nothing may expand, followed by
// the rewrite regex's first capture.
func captureQuote(s string) (string, error) {
	if _, err := quote(s); err != nil {
		return "", err
	}
	return quoteRaw(s + "$1")
}

// replacementQuote quotes a regex location's rewrite replacement, in which nginx expands
// '$': every '$' must start a capture reference $1-$9, never a variable.
func replacementQuote(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && (i+1 == len(s) || s[i+1] < '1' || s[i+1] > '9') {
			return "", fmt.Errorf("rewrite %q holds a '$' that is not a capture $1-$9", s)
		}
	}
	return quoteRaw(s)
}

// captureRedirectQuote quotes a redirect URL that names a regex location's capture groups:
// every '$' must start $1-$9, never a variable; the request's query follows, as nginx's
// rewrite to a URL keeps it ($is_args$args, fixed text of the renderer's).
func captureRedirectQuote(s string) (string, error) {
	if _, err := replacementQuote(s); err != nil {
		return "", err
	}
	return quoteRaw(s + "$is_args$args")
}

// quoteRaw escapes the two characters nginx's tokenizer treats specially inside double
// quotes. The tokenizer turns `\\` back into `\` and keeps any other backslash pair as it
// is, so doubling every backslash preserves regex escapes such as `\d` exactly.
func quoteRaw(s string) (string, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("value %q contains a control character", s)
		}
	}
	if !strings.ContainsAny(s, `\"`) {
		return `"` + s + `"`, nil // the common case: a thousand-server render quotes ~100,000 values
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`, nil
}

// luaQuote writes s as a Lua string literal for code inside a *_by_lua_block.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
