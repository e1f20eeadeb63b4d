package render_test

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// sameStructure renders cfg, which the API accepted for the fuzz input in, and benign, the
// same config with placeholder values, and fails unless the two tokenize into the same
// statements but for argument values: no accepted value may add a directive, a block or
// an argument. It returns cfg's statements and conf, for the caller's checks that the
// values come back from nginx's tokenizer intact.
func sameStructure(t *testing.T, in any, cfg, benign api.Config) ([]stmt, string) {
	t.Helper()
	real, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatalf("api accepted %+v but Render refused it: %v", in, err)
	}
	placeholder, err := render.Conf(benign, fuzzOptions)
	if err != nil {
		t.Fatalf("render placeholders: %v", err)
	}
	got, err := tokenize(string(real))
	if err != nil {
		t.Fatalf("nginx would not parse the conf for %+v: %v\n%s", in, err, real)
	}
	want, err := tokenize(string(placeholder))
	if err != nil {
		t.Fatalf("tokenize placeholders: %v", err)
	}
	if diff := cmp.Diff(shapes(want), shapes(got)); diff != "" {
		t.Fatalf("%+v changed the structure of nginx.conf (-placeholders +input):\n%s", in, diff)
	}
	return got, string(real)
}

// shapes is each statement's shape: its name and nesting without the argument values.
func shapes(ss []stmt) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.shape()
	}
	return out
}

// soupTest is a fuzz target's bounded sibling for every `go test`: inputs made from a valid
// seed with a value or two changed to hostile ones, then the seeds, each checked as the fuzz
// target checks its inputs.
type soupTest[T interface{ config() api.Config }] struct {
	inputs int                 // how many inputs next makes
	least  int                 // how many of them must pass validation for the test to prove much
	next   func(i int) T       // the i-th input
	check  func(*testing.T, T) // the fuzz target's check
	seeds  []T                 // the fuzz target's seed corpus
}

func (s soupTest[T]) run(t *testing.T) {
	t.Helper()
	accepted := 0
	for i := range s.inputs {
		in := s.next(i)
		if valid(in.config()) {
			accepted++
		}
		s.check(t, in)
	}
	for _, in := range s.seeds {
		s.check(t, in)
	}
	if accepted < s.least {
		t.Fatalf("only %d of %d inputs were valid: the test exercises too little", accepted, s.inputs)
	}
	t.Logf("%d of %d inputs accepted and rendered without a new directive", accepted, s.inputs)
}

// tokenSoup is the characters that matter to nginx's tokenizer, and a few that do not.
const tokenSoup = "abz09/._-~!&'()*+,=:@%$^|?[]{}\\\"; #\t\nxX*"

// hostile makes a soupTest's values from a fixed seed, so that a failure repeats.
type hostile struct {
	*rand.Rand
	soup string // the characters of its values
	most int    // a word adds fewer than most characters to its prefix
}

func newHostile(seed int64) *hostile {
	return &hostile{Rand: rand.New(rand.NewSource(seed)), soup: tokenSoup, most: 8}
}

// word is prefix and then a few characters of the soup.
func (h *hostile) word(prefix string) string {
	b := []byte(prefix)
	for n := h.Intn(h.most); n > 0; n-- {
		b = append(b, h.soup[h.Intn(len(h.soup))])
	}
	return string(b)
}

// mutate is s with up to two of its characters replaced by, or followed by, ones of the soup.
func (h *hostile) mutate(s string) string {
	b := []byte(s)
	for n := h.Intn(3); n > 0; n-- {
		c := h.soup[h.Intn(len(h.soup))]
		if len(b) > 0 && h.Intn(2) == 0 {
			b[h.Intn(len(b))] = c
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
