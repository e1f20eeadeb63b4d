package render_test

import (
	"fmt"
	"strings"
)

// stmt is one directive as nginx's parser sees it: its block depth, its name, and its
// arguments with quotes and escapes resolved.
type stmt struct {
	depth int
	name  string
	args  []string
	block bool // it opens a block
}

func (s stmt) shape() string {
	b := ""
	if s.block {
		b = " {"
	}
	return fmt.Sprintf("%d %s/%d%s", s.depth, s.name, len(s.args), b)
}

// tokenize reads nginx.conf the way ngx_conf_read_token does: whitespace separates
// words, ';' ends a directive, '{' and '}' open and close blocks, '#' starts a comment,
// quotes group a word and backslashes escape. The body of a *_by_lua_block is Lua, which
// the Lua module reads with a Lua-aware lexer; it is skipped here the same way.
func tokenize(conf string) ([]stmt, error) {
	var out []stmt
	var words []string
	depth, i := 0, 0
	for i < len(conf) {
		c := conf[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(conf) && conf[i] != '\n' {
				i++
			}
		case c == ';':
			if len(words) == 0 {
				return nil, fmt.Errorf("offset %d: unexpected ';'", i)
			}
			out = append(out, stmt{depth: depth, name: words[0], args: words[1:]})
			words = nil
			i++
		case c == '{':
			if len(words) == 0 {
				return nil, fmt.Errorf("offset %d: unexpected '{'", i)
			}
			out = append(out, stmt{depth: depth, name: words[0], args: words[1:], block: true})
			i++
			if strings.HasSuffix(words[0], "_by_lua_block") {
				end, err := skipLua(conf, i)
				if err != nil {
					return nil, err
				}
				i = end
			} else {
				depth++
			}
			words = nil
		case c == '}':
			if len(words) != 0 || depth == 0 {
				return nil, fmt.Errorf("offset %d: unexpected '}'", i)
			}
			depth--
			i++
		case c == '"' || c == '\'':
			w, end, err := quoted(conf, i)
			if err != nil {
				return nil, err
			}
			if end < len(conf) && !strings.ContainsRune(" \t\r\n;{)", rune(conf[end])) {
				return nil, fmt.Errorf("offset %d: unexpected %q after a quoted word", end, conf[end])
			}
			words = append(words, w)
			i = end
		default:
			start := i
			for i < len(conf) && !strings.ContainsRune(" \t\r\n;{}", rune(conf[i])) {
				if conf[i] == '\\' {
					i++
				}
				i++
			}
			words = append(words, unescape(conf[start:min(i, len(conf))]))
		}
	}
	if depth != 0 || len(words) != 0 {
		return nil, fmt.Errorf("unexpected end of file")
	}
	return out, nil
}

// quoted reads the quoted word starting at conf[i] and returns it and the offset after it.
func quoted(conf string, i int) (string, int, error) {
	q := conf[i]
	for j := i + 1; j < len(conf); j++ {
		switch conf[j] {
		case '\\':
			j++
		case q:
			return unescape(conf[i+1 : j]), j + 1, nil
		}
	}
	return "", 0, fmt.Errorf("offset %d: unterminated quote", i)
}

// unescape resolves the escapes nginx resolves in every word.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\'', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case 'r':
				b.WriteByte('\r')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// skipLua skips a Lua block body starting after its '{' and returns the offset after its
// closing '}', honouring Lua strings, long brackets and comments.
func skipLua(conf string, i int) (int, error) {
	depth := 1
	for i < len(conf) {
		c := conf[i]
		switch {
		case c == '{':
			depth++
			i++
		case c == '}':
			depth--
			i++
			if depth == 0 {
				return i, nil
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(conf) && conf[j] != c {
				if conf[j] == '\\' {
					j++
				} else if conf[j] == '\n' {
					return 0, fmt.Errorf("offset %d: unfinished Lua string", i)
				}
				j++
			}
			if j >= len(conf) {
				return 0, fmt.Errorf("offset %d: unfinished Lua string", i)
			}
			i = j + 1
		case strings.HasPrefix(conf[i:], "--"):
			i += 2
			if end, ok := longBracket(conf, i); ok {
				i = end
				continue
			}
			for i < len(conf) && conf[i] != '\n' {
				i++
			}
		case c == '[':
			if end, ok := longBracket(conf, i); ok {
				i = end
				continue
			}
			i++
		default:
			i++
		}
	}
	return 0, fmt.Errorf("unfinished Lua block")
}

// longBracket skips a Lua long bracket ([[...]] or [==[...]==]) at conf[i].
func longBracket(conf string, i int) (int, bool) {
	if i >= len(conf) || conf[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(conf) && conf[j] == '=' {
		j++
	}
	if j >= len(conf) || conf[j] != '[' {
		return 0, false
	}
	closing := "]" + strings.Repeat("=", j-i-1) + "]"
	end := strings.Index(conf[j+1:], closing)
	if end < 0 {
		return len(conf), true
	}
	return j + 1 + end + len(closing), true
}
