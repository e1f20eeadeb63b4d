package reconciler

import (
	"fmt"
	"strings"
)

// directive is one statement of a snippet as nginx's parser reads it: its name, its
// arguments unquoted and unescaped as nginx does (nothing expanded), and the statements
// of its block, nil for a directive that ends in ';'.
type directive struct {
	name  string
	args  []string
	block []directive
	line  int
}

// String writes the directive back, one line, for verdicts.
func (d directive) String() string {
	var b strings.Builder
	b.WriteString(d.name)
	for _, a := range d.args {
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t;{}#\"'") {
			b.WriteString(fmt.Sprintf("%q", a))
		} else {
			b.WriteString(a)
		}
	}
	if d.block != nil {
		b.WriteString(" {...}")
	}
	return b.String()
}

// Bounds of a snippet: larger ones are refused before they are read.
const (
	maxSnippetBytes      = 16 << 10
	maxSnippetDirectives = 200
	maxSnippetDepth      = 2
)

// refusedDirectives are directives whose name alone refuses a snippet, read before their
// arguments or block (a Lua block is Lua, not nginx syntax), each with why.
func refusedDirective(name string) string {
	switch {
	case strings.Contains(name, "lua"):
		return "runs Lua code, which is a program, not configuration"
	case name == "include":
		return "reads a file of the proxy's disk into the configuration"
	case name == "load_module":
		return "loads a shared library into nginx"
	case strings.Contains(name, "perl") || strings.Contains(name, "js_"):
		return "runs code, which is a program, not configuration"
	}
	return ""
}

// parseSnippet reads a snippet with the rules of nginx's own configuration tokenizer:
// statements end in ';' or hold a block in braces; arguments are separated by
// whitespace, may be quoted with '"' or '\” (a quote opens only at the start of an
// argument, and a closed one must be followed by whitespace, ';' or '{'), and are
// unescaped as nginx unescapes them (\" \' \\ \t \r \n; any other backslash pair stays as
// it is); '#' at the start of an argument comments out the rest of the line. Nothing is
// expanded. Whatever nginx would read differently, or refuse, is an error here: an
// unterminated quote or block, "${", a statement with no name, a block deeper than
// maxSnippetDepth, and the directives refusedDirective names, named as soon as they are
// read.
func parseSnippet(s string) ([]directive, error) {
	if len(s) > maxSnippetBytes {
		return nil, fmt.Errorf("the snippet is %d bytes, more than the %d read", len(s), maxSnippetBytes)
	}
	p := &snippetParser{s: s, line: 1}
	ds, err := p.statements(0)
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", p.line, err)
	}
	return ds, nil
}

type snippetParser struct {
	s     string
	i     int
	line  int
	count int
}

// token kinds besides words.
const (
	tokWord = iota
	tokSemicolon
	tokOpen
	tokClose
	tokEOF
)

// statements reads statements until the end of its block (a '}' at depth > 0) or of the
// snippet (at depth 0).
func (p *snippetParser) statements(depth int) ([]directive, error) {
	out := []directive{}
	for {
		kind, word, err := p.token()
		if err != nil {
			return nil, err
		}
		switch kind {
		case tokEOF:
			if depth > 0 {
				return nil, fmt.Errorf("a block is not closed with '}'")
			}
			return out, nil
		case tokClose:
			if depth == 0 {
				return nil, fmt.Errorf("unexpected '}'")
			}
			return out, nil
		case tokSemicolon, tokOpen:
			return nil, fmt.Errorf("a statement has no directive name before %q", map[int]string{tokSemicolon: ";", tokOpen: "{"}[kind])
		}
		if p.count++; p.count > maxSnippetDirectives {
			return nil, fmt.Errorf("more than %d directives", maxSnippetDirectives)
		}
		d := directive{name: word, line: p.line}
		if why := refusedDirective(word); why != "" {
			return nil, &snippetRefusal{directive: word, why: why}
		}
		for done := false; !done; {
			kind, word, err := p.token()
			if err != nil {
				return nil, err
			}
			switch kind {
			case tokWord:
				d.args = append(d.args, word)
			case tokSemicolon:
				done = true
			case tokOpen:
				if depth+1 > maxSnippetDepth {
					return nil, fmt.Errorf("blocks nest deeper than %d", maxSnippetDepth)
				}
				if d.block, err = p.statements(depth + 1); err != nil {
					return nil, err
				}
				done = true
			default:
				return nil, fmt.Errorf("directive %s does not end with ';'", d.name)
			}
		}
		out = append(out, d)
	}
}

// snippetRefusal is a directive that refuses the snippet by its name.
type snippetRefusal struct{ directive, why string }

func (r *snippetRefusal) Error() string {
	return fmt.Sprintf("directive %s is refused: it %s", r.directive, r.why)
}

// token reads the next token: a word (unquoted and unescaped), ';', '{', '}' or the end.
func (p *snippetParser) token() (int, string, error) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			goto word
		}
	}
	return tokEOF, "", nil
word:
	switch c := p.s[p.i]; c {
	case ';':
		p.i++
		return tokSemicolon, "", nil
	case '{':
		p.i++
		return tokOpen, "", nil
	case '}':
		p.i++
		return tokClose, "", nil
	case '"', '\'':
		return p.quoted(c)
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '{' || c == '}' {
			break
		}
		if c == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '{' {
			return 0, "", fmt.Errorf("\"${\" is nginx's braced variable syntax, which is not read")
		}
		if c == '\\' {
			if p.i+1 == len(p.s) {
				return 0, "", fmt.Errorf("a backslash ends the snippet")
			}
			p.i++
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return 0, "", fmt.Errorf("a control character in an argument")
		}
		p.i++
	}
	return tokWord, unescape(p.s[start:p.i]), nil
}

// quoted reads a quoted argument opened by q.
func (p *snippetParser) quoted(q byte) (int, string, error) {
	p.i++
	start := p.i
	for {
		if p.i >= len(p.s) {
			return 0, "", fmt.Errorf("a quoted argument is not closed")
		}
		c := p.s[p.i]
		if c == '\\' && p.i+1 < len(p.s) {
			p.i += 2
			continue
		}
		if c == '\n' {
			p.line++
		}
		if c == q {
			break
		}
		p.i++
	}
	word := unescape(p.s[start:p.i])
	p.i++
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n', ';', '{':
		default:
			return 0, "", fmt.Errorf("a quoted argument is followed by %q instead of a space, ';' or '{'", p.s[p.i])
		}
	}
	return tokWord, word, nil
}

// unescape undoes nginx's escapes in an argument: \" \' \\ become the character, \t \r \n
// the control characters; any other backslash is kept with what follows.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
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
