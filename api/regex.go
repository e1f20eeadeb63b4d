package api

// starHeight returns the star height of a regex in the grammar ValidRegex admits: how deep
// unbounded quantifiers (*, + and {n,}) nest. "(a+)+" has height 2, and PCRE, a
// backtracking engine, can take time exponential in the path's length to fail on it.
// Bounded repetition ({n} and {n,m}) and ? repeat a finite number of times and do not
// count. The regex has compiled already, so it is well formed.
func starHeight(re string) int {
	p := starParser{s: re}
	return p.seq()
}

// repeatsFlagGroup reports whether a quantifier follows a group that only sets flags, as
// in "(?i)+" or "a(?)?": Go's regexp applies it to the atom before the group (or to
// nothing), where PCRE refuses to compile the regex, and nginx -t with it.
func repeatsFlagGroup(re string) bool {
	p := starParser{s: re, afterFlags: -1}
	p.seq()
	return p.repeatsFlags
}

// starParser walks a regex once, keeping only what star height needs, and whether a
// quantifier follows a group that only sets flags.
type starParser struct {
	s string
	i int
	// afterFlags is the index just past the last flags-only group, "(?i)".
	afterFlags   int
	repeatsFlags bool
}

// seq reads atoms up to an unmatched ')' or the end and returns the largest height among
// them. last is the height of the atom a quantifier would apply to, -1 when there is none.
func (p *starParser) seq() int {
	best, last := 0, -1
	next := func(h int) {
		best, last = max(best, last), h
	}
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ')':
			return max(best, last)
		case c == '|':
			p.i++
			next(-1)
		case c == '(':
			p.i++
			flagsOnly := p.groupPrefix()
			h := p.seq()
			p.i++ // the ')'
			next(h)
			if flagsOnly {
				p.afterFlags = p.i
			}
		case c == '[':
			p.class()
			next(0)
		case c == '\\':
			p.i += 2
			next(0)
		case c == '*' || c == '+' || c == '?' || c == '{' && p.repeatLen() > 0:
			if p.i == p.afterFlags {
				p.repeatsFlags = true
			}
			if p.quantifier() && last >= 0 {
				last++
			}
		default:
			p.i++
			next(0)
		}
	}
	return max(best, last)
}

// groupPrefix skips what follows a '(' before the group's pattern: "?:", "?<name>",
// "?P<name>" or inline flags such as "?i:" and "?i)". It reports whether the group only
// sets flags ("?i)", and "?)"), which has no pattern to repeat.
func (p *starParser) groupPrefix() (flagsOnly bool) {
	if p.i >= len(p.s) || p.s[p.i] != '?' {
		return false
	}
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ':', '>':
			p.i++
			return false
		case ')':
			return true
		}
		p.i++
	}
	return false
}

// class skips a bracket expression: a ']' first is literal, a backslash escapes, and
// "[:alpha:]" is a POSIX class inside it.
func (p *starParser) class() {
	p.i++
	if p.i < len(p.s) && p.s[p.i] == '^' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] != ']' {
		switch {
		case p.s[p.i] == '\\':
			p.i += 2
		case p.s[p.i] == '[' && p.i+1 < len(p.s) && p.s[p.i+1] == ':':
			p.i += 2
			for p.i+1 < len(p.s) && !(p.s[p.i] == ':' && p.s[p.i+1] == ']') {
				p.i++
			}
			p.i += 2
		default:
			p.i++
		}
	}
	p.i++
}

// quantifier reads one quantifier with its lazy '?' or possessive '+' modifier and
// reports whether it is unbounded.
func (p *starParser) quantifier() bool {
	unbounded := false
	switch p.s[p.i] {
	case '*', '+':
		unbounded = true
		p.i++
	case '?':
		p.i++
	default: // {n}, {n,} or {n,m}
		n := p.repeatLen()
		unbounded = p.s[p.i+n-2] == ','
		p.i += n
	}
	if p.i < len(p.s) && (p.s[p.i] == '?' || p.s[p.i] == '+') {
		p.i++
	}
	return unbounded
}

// repeatLen returns the length of a counted repetition at p.i ("{2}", "{2,}", "{2,5}"),
// or 0 when the '{' there is a literal brace.
func (p *starParser) repeatLen() int {
	j, digits, comma := p.i+1, 0, false
	for ; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c >= '0' && c <= '9':
			digits++
		case c == ',' && !comma && digits > 0:
			comma = true
		case c == '}' && digits > 0:
			return j - p.i + 1
		default:
			return 0
		}
	}
	return 0
}
