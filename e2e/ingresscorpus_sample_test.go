package e2e

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// samplePath returns a concrete path that the regular expression of a regex location
// matches (nginx matches it from the path's start): the shortest choice at each step.
func samplePath(re string) string {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return re
	}
	var b strings.Builder
	writeSample(&b, parsed.Simplify())
	s := b.String()
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return s
}

func writeSample(b *strings.Builder, r *syntax.Regexp) {
	switch r.Op {
	case syntax.OpLiteral:
		b.WriteString(string(r.Rune))
	case syntax.OpCharClass:
		c := rune('a')
		if len(r.Rune) > 0 {
			c = r.Rune[0]
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if lo := r.Rune[i]; unicode.IsLetter(lo) || unicode.IsDigit(lo) {
					c = lo
					break
				}
			}
		}
		b.WriteRune(c)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune('a')
	case syntax.OpPlus:
		writeSample(b, r.Sub[0])
	case syntax.OpRepeat:
		for i := 0; i < r.Min; i++ {
			writeSample(b, r.Sub[0])
		}
	case syntax.OpConcat:
		for _, s := range r.Sub {
			writeSample(b, s)
		}
	case syntax.OpAlternate:
		writeSample(b, r.Sub[0])
	case syntax.OpCapture:
		writeSample(b, r.Sub[0])
	}
}

// samplePathMatches says whether the sample matches its expression as nginx would.
func samplePathMatches(re, path string) bool {
	m, err := regexp.Compile("(?i)^(?:" + re + ")")
	return err == nil && m.MatchString(path)
}
