package api

import "fmt"

// ambiguity says why a regex in the grammar ValidRegex admits lets PCRE, a backtracking
// engine, take time exponential or polynomial in a path's length, or "" when it does not.
// It reads the regex as PCRE does (Go's parser would merge (\w|\d) into one class and
// hide the ambiguity), and refuses:
//   - a repeated part that can match nothing, as (a?)* and (){2} do;
//   - a repeated part that can match the same text in two ways: alternatives that can
//     start with the same character, as (a|a)*, (\w|\d)* and (a|aa)+ have, or an
//     optional part that can stop or go on at the same character, as (a?b?a)* has;
//   - two unbounded repetitions in a row that can take the same characters, when
//     something after them can still fail, as .*.*x and \w+\d+x do: PCRE tries every
//     split of the text between them.
//
// These are sufficient conditions, on the safe side: a regex they refuse may be fast, and
// the message says how to write it.
func ambiguity(re string) string {
	p := reParser{s: re}
	return p.alt().ambiguity(true)
}

// charSet is a set of bytes.
type charSet [4]uint64

func (c *charSet) add(b byte) { c[b>>6] |= 1 << (b & 63) }
func (c *charSet) addRange(lo, hi byte) {
	for b := int(lo); b <= int(hi); b++ {
		c.add(byte(b))
	}
}
func (c charSet) union(d charSet) charSet {
	return charSet{c[0] | d[0], c[1] | d[1], c[2] | d[2], c[3] | d[3]}
}
func (c charSet) meets(d charSet) bool  { return c[0]&d[0]|c[1]&d[1]|c[2]&d[2]|c[3]&d[3] != 0 }
func (c charSet) within(d charSet) bool { return c.union(d) == d }
func (c charSet) not() charSet          { return charSet{^c[0], ^c[1], ^c[2], ^c[3]} }

// reOp is the kind of a regex node.
type reOp int

const (
	reChars  reOp = iota // one character of set
	reAssert             // ^, $, \b, \z: matches no character
	reCat
	reAlt
	reRepeat // subs[0] repeated min to max times; max -1 is unbounded
)

// reNode is a regex as PCRE reads it.
type reNode struct {
	op       reOp
	set      charSet
	subs     []*reNode
	min, max int
}

func (n *reNode) nullable() bool {
	switch n.op {
	case reAssert:
		return true
	case reCat:
		for _, s := range n.subs {
			if !s.nullable() {
				return false
			}
		}
		return true
	case reAlt:
		for _, s := range n.subs {
			if s.nullable() {
				return true
			}
		}
		return false
	case reRepeat:
		return n.min == 0 || n.subs[0].nullable()
	}
	return false
}

// first is the set of characters a match of n can start with.
func (n *reNode) first() charSet {
	switch n.op {
	case reChars:
		return n.set
	case reCat:
		var c charSet
		for _, s := range n.subs {
			c = c.union(s.first())
			if !s.nullable() {
				break
			}
		}
		return c
	case reAlt, reRepeat:
		var c charSet
		for _, s := range n.subs {
			c = c.union(s.first())
		}
		return c
	}
	return charSet{}
}

// chars is the set of characters a match of n can hold.
func (n *reNode) chars() charSet {
	c := n.set
	for _, s := range n.subs {
		c = c.union(s.chars())
	}
	return c
}

// choiceAmbiguous reports whether a match of n can take a choice (an alternative, an
// optional or variable-count part) in two ways at the same character: two alternatives
// that can start alike, or a part that may stop or go on where what follows it (follow)
// can start alike. A repeated body where no choice is ambiguous is matched in one way.
func (n *reNode) choiceAmbiguous(follow charSet) bool {
	switch n.op {
	case reCat:
		for i, it := range n.subs {
			f := seqFirst(n.subs[i+1:])
			if seqNullable(n.subs[i+1:]) {
				f = f.union(follow)
			}
			if it.choiceAmbiguous(f) {
				return true
			}
		}
	case reAlt:
		var seen charSet
		for _, b := range n.subs {
			first := b.first() // where the branch can start, or end at once when it is nullable
			if b.nullable() {
				first = first.union(follow)
			}
			if first.meets(seen) {
				return true
			}
			seen = seen.union(first)
			if b.choiceAmbiguous(follow) {
				return true
			}
		}
	case reRepeat:
		first := n.subs[0].first()
		if n.min != n.max && first.meets(follow) {
			return true
		}
		return n.subs[0].choiceAmbiguous(follow.union(first))
	}
	return false
}

func seqFirst(items []*reNode) charSet {
	return (&reNode{op: reCat, subs: items}).first()
}

func seqNullable(items []*reNode) bool {
	return (&reNode{op: reCat, subs: items}).nullable()
}

// ambiguity is the package function's check of n; top says n is the whole regex.
func (n *reNode) ambiguity(top bool) string {
	if n.op == reRepeat && (n.max < 0 || n.max > 1) {
		body := n.subs[0]
		switch {
		case body.nullable():
			return "a repeated part can match nothing, so PCRE can repeat it in countless ways: make every repeated part match at least one character"
		case body.choiceAmbiguous(body.first()):
			return "a repeated part can match the same text in two ways, as (a|aa)+, (\\w|\\d)* or (a?b?)* can, so PCRE tries every way to split the path: use one character class, or alternatives and optional parts that start with different characters"
		}
	}
	if n.op == reCat {
		if why := catAmbiguity(n.subs, top); why != "" {
			return why
		}
	}
	for _, s := range n.subs {
		if why := s.ambiguity(false); why != "" {
			return why
		}
	}
	return ""
}

// catAmbiguity checks a concatenation for runs of parts that can share the same text,
// so that PCRE tries every way to split it between them. A run starts at a part of
// variable length and goes on while the parts after it can match nothing or start with a
// character it takes. Among the parts of the run that can take its characters, it
// refuses two unbounded repetitions (unless the second ends the regex, when what follows
// cannot fail), an unbounded one with optional parts of more than 2 combinations, and
// optional parts of more than 64.
func catAmbiguity(items []*reNode, top bool) string {
	items = flatten(items)
	for i, a := range items {
		ac := a.chars()
		if u, c := a.flex(ac); u == 0 && c == 1 {
			continue
		}
		unbounded, combos := 0, 1
		for j := i; j < len(items); j++ {
			b := items[j]
			if j > i && !b.nullable() && !b.first().meets(ac) {
				break
			}
			u, c := b.flex(ac)
			combos *= c
			if unbounded += u; u > 0 && unbounded > 1 && !(top && b.op == reRepeat && onlyAsserts(items[j+1:])) {
				return fmt.Sprintf("two unbounded repetitions in a row can take the same characters, as .*.*x or \\w+\\d+x do, so PCRE tries every split of the path between them (parts %d and %d): bound one, or keep their characters apart", i+1, j+1)
			}
			if unbounded > 0 && combos > 2 || combos > 64 {
				return fmt.Sprintf("parts %d to %d can take the same characters in %d ways or more, as a*a?a?a? can, so PCRE tries every one: keep the characters of repeated and optional parts apart", i+1, j+1, combos)
			}
		}
	}
	return ""
}

// flex counts the choices of n that can take characters of ac: its unbounded repetitions,
// and the combinations of its optional parts, bounded repetitions and alternatives.
func (n *reNode) flex(ac charSet) (unbounded, combos int) {
	if !n.chars().meets(ac) {
		return 0, 1
	}
	switch n.op {
	case reRepeat:
		if n.max < 0 {
			return 1, 1
		}
		u, c := n.subs[0].flex(ac)
		return u, c * (n.max - n.min + 1)
	case reAlt:
		for _, b := range n.subs {
			bu, bc := b.flex(ac)
			unbounded, combos = max(unbounded, bu), combos+bc
		}
		return unbounded, combos
	case reCat:
		combos = 1
		for _, it := range n.subs {
			iu, ic := it.flex(ac)
			unbounded, combos = unbounded+iu, combos*ic
		}
		return unbounded, combos
	}
	return 0, 1
}

// flatten inlines the concatenations among items, as PCRE matches them.
func flatten(items []*reNode) []*reNode {
	var out []*reNode
	for _, it := range items {
		if it.op == reCat {
			out = append(out, flatten(it.subs)...)
			continue
		}
		out = append(out, it)
	}
	return out
}

func onlyAsserts(items []*reNode) bool {
	for _, it := range items {
		if it.op != reAssert {
			return false
		}
	}
	return true
}

// reParser reads a regex of ValidRegex's grammar, which has compiled already, so it is
// well formed.
type reParser struct {
	s string
	i int
}

func (p *reParser) more() bool { return p.i < len(p.s) }

// alt reads branches up to an unmatched ')' or the end.
func (p *reParser) alt() *reNode {
	branches := []*reNode{p.cat()}
	for p.more() && p.s[p.i] == '|' {
		p.i++
		branches = append(branches, p.cat())
	}
	if len(branches) == 1 {
		return branches[0]
	}
	return &reNode{op: reAlt, subs: branches}
}

// cat reads atoms and their quantifiers up to '|', an unmatched ')' or the end.
func (p *reParser) cat() *reNode {
	n := &reNode{op: reCat}
	for p.more() && p.s[p.i] != '|' && p.s[p.i] != ')' {
		atom := p.atom()
		for p.more() {
			min, max, ok := p.quantifier()
			if !ok {
				break
			}
			atom = &reNode{op: reRepeat, subs: []*reNode{atom}, min: min, max: max}
		}
		n.subs = append(n.subs, atom)
	}
	return n
}

func (p *reParser) atom() *reNode {
	c := p.s[p.i]
	p.i++
	switch c {
	case '(':
		if p.flagsOnly() {
			return &reNode{op: reAssert}
		}
		n := p.alt()
		p.i++ // ')'
		return n
	case '[':
		return &reNode{op: reChars, set: p.class()}
	case '\\':
		e := p.s[p.i]
		p.i++
		if e == 'b' || e == 'z' { // \b and \z match no character, as ^ and $ do
			return &reNode{op: reAssert}
		}
		if set, ok := escapeSet(e); ok {
			return &reNode{op: reChars, set: set}
		}
		return &reNode{op: reChars, set: letter(e)}
	case '.':
		var all charSet
		all = all.not()
		return &reNode{op: reChars, set: all}
	case '^', '$':
		return &reNode{op: reAssert}
	}
	return &reNode{op: reChars, set: letter(c)}
}

// flagsOnly skips a group's prefix ("?:", "?<name>", "?P<name>", "?i:") and reports
// whether the group only sets flags ("(?i)"), which it then consumes whole.
func (p *reParser) flagsOnly() bool {
	if !p.more() || p.s[p.i] != '?' {
		return false
	}
	for p.i++; p.more(); p.i++ {
		switch p.s[p.i] {
		case ':', '>':
			p.i++
			return false
		case ')':
			p.i++
			return true
		}
	}
	return false
}

// quantifier reads *, +, ?, {n}, {n,} or {n,m} with a lazy or possessive modifier.
func (p *reParser) quantifier() (min, max int, ok bool) {
	switch p.s[p.i] {
	case '*':
		min, max = 0, -1
	case '+':
		min, max = 1, -1
	case '?':
		min, max = 0, 1
	case '{':
		sp := starParser{s: p.s, i: p.i}
		n := sp.repeatLen()
		if n == 0 {
			return 0, 0, false
		}
		var lo, hi int
		body := p.s[p.i+1 : p.i+n-1]
		switch k, _ := fmt.Sscanf(body, "%d,%d", &lo, &hi); {
		case k == 2:
			min, max = lo, hi
		case body[len(body)-1] == ',':
			min, max = lo, -1
		default:
			min, max = lo, lo
		}
		p.i += n - 1
	default:
		return 0, 0, false
	}
	p.i++
	if p.more() && (p.s[p.i] == '?' || p.s[p.i] == '+') {
		p.i++
	}
	return min, max, true
}

// class reads a bracket expression after its '['.
func (p *reParser) class() charSet {
	var set charSet
	neg := false
	if p.more() && p.s[p.i] == '^' {
		neg = true
		p.i++
	}
	for first := true; p.more() && (p.s[p.i] != ']' || first); first = false {
		var lo byte
		switch {
		case p.s[p.i] == '[' && p.i+1 < len(p.s) && p.s[p.i+1] == ':':
			end := p.i + 2
			for end+1 < len(p.s) && !(p.s[end] == ':' && p.s[end+1] == ']') {
				end++
			}
			set = set.union(posixSet(p.s[p.i+2 : end]))
			p.i = end + 2
			continue
		case p.s[p.i] == '\\':
			e := p.s[p.i+1]
			p.i += 2
			if s, ok := escapeSet(e); ok {
				set = set.union(s)
				continue
			}
			lo = e
		default:
			lo = p.s[p.i]
			p.i++
		}
		if p.i+1 < len(p.s) && p.s[p.i] == '-' && p.s[p.i+1] != ']' {
			hi := p.s[p.i+1]
			p.i += 2
			if hi == '\\' {
				hi = p.s[p.i]
				p.i++
			}
			for b := int(lo); b <= int(hi); b++ {
				set = set.union(letter(byte(b)))
			}
			continue
		}
		set = set.union(letter(lo))
	}
	p.i++ // ']'
	if neg {
		return set.not()
	}
	return set
}

// letter is the set of one character, with its other case: a regex may turn on (?i).
func letter(c byte) charSet {
	var s charSet
	s.add(c)
	switch {
	case c >= 'a' && c <= 'z':
		s.add(c - 32)
	case c >= 'A' && c <= 'Z':
		s.add(c + 32)
	}
	return s
}

func escapeSet(e byte) (charSet, bool) {
	var s charSet
	switch e | 0x20 {
	case 'd':
		s.addRange('0', '9')
	case 'w':
		s.addRange('0', '9')
		s.addRange('a', 'z')
		s.addRange('A', 'Z')
		s.add('_')
	case 's':
		for _, c := range []byte(" \t\n\r\f\v") {
			s.add(c)
		}
	default:
		return s, false
	}
	if e >= 'A' && e <= 'Z' {
		return s.not(), true
	}
	return s, true
}

// posixSet is a POSIX class; one it does not know is taken as every character.
func posixSet(name string) charSet {
	var s charSet
	switch name {
	case "digit":
		s, _ = escapeSet('d')
	case "alpha":
		s.addRange('a', 'z')
		s.addRange('A', 'Z')
	case "alnum":
		s.addRange('a', 'z')
		s.addRange('A', 'Z')
		s.addRange('0', '9')
	case "lower":
		s.addRange('a', 'z')
	case "upper":
		s.addRange('A', 'Z')
	case "word":
		s, _ = escapeSet('w')
	case "space":
		s, _ = escapeSet('s')
	case "xdigit":
		s.addRange('0', '9')
		s.addRange('a', 'f')
		s.addRange('A', 'F')
	default:
		s = s.not()
	}
	return s
}
