package api

import "testing"

func TestStarHeight(t *testing.T) {
	tests := []struct {
		re   string
		want int
	}{
		{`^/shop$`, 0},
		{`^/a+$`, 1},
		{`^/(a+)+$`, 2},
		{`^/(a*)*$`, 2},
		{`^/(a|aa)+$`, 1},
		{`^/(?:a+b)*$`, 2},
		{`^/([a-z]+/)*x$`, 2},
		{`^/(a{2,})+$`, 2},
		{`^/(a{2})+$`, 1},
		{`^/(a?)+$`, 1},
		{`^/(a+){3}$`, 1},
		{`^/(a+){2,5}$`, 1},
		{`^/[+*]+$`, 1},
		{`^/\(a+\)+$`, 1},
		{`^/((a)+)$`, 1},
		{`^/(((a+)))+$`, 2},
		{`^/api/v[0-9]+/(users|orders)/[0-9]+$`, 1},
		{`^/(\d+)+$`, 2},
		{`^/[\]+]+$`, 1},
	}
	for _, tc := range tests {
		if got := starHeight(tc.re); got != tc.want {
			t.Errorf("starHeight(%q) = %d, want %d", tc.re, got, tc.want)
		}
	}
}

func TestValidRegexRefusesNestedQuantifiers(t *testing.T) {
	for _, re := range []string{`^/(a+)+$`, `^/(a*)*b`, `^/(x+x+)+y$`, `/(.*a){2,}`} {
		if err := ValidRegex("path", re); err == nil {
			t.Errorf("ValidRegex(%q) = nil, want an error", re)
		}
	}
	for _, re := range []string{`^/(a|b)+$`, `^/users/[0-9]+$`, `/(ab){1,3}`} {
		if err := ValidRegex("path", re); err != nil {
			t.Errorf("ValidRegex(%q) = %v, want nil", re, err)
		}
	}
}

// A quantifier right after a group that only sets flags compiles in Go (it applies to the
// atom before) and not in PCRE: ValidRegex refuses it, and keeps the forms PCRE takes.
func TestValidRegexRefusesARepeatedFlagGroup(t *testing.T) {
	for _, re := range []string{`/(0(?)?)`, `/(?)?`, `/a(?i)+`, `^/x(?s)*$`, `/a(?i){2}`} {
		if err := ValidRegex("path", re); err == nil {
			t.Errorf("ValidRegex(%q) = nil, want an error", re)
		}
	}
	for _, re := range []string{`/(?i)a+`, `/(?i:a)+`, `/(?:a)+`, `/[(?)+]`, `/\(?i\)`, `/(?i)`, `/a(?i){x`} {
		if err := ValidRegex("path", re); err != nil {
			t.Errorf("ValidRegex(%q) = %v, want nil", re, err)
		}
	}
}
