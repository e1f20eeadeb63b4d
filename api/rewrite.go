package api

import (
	"regexp"
	"strconv"
	"strings"
)

// regexRewriteRe is a regex location's rewrite: a path of the characters ValidPath admits
// and $1-$9, the regex's capture groups, which are the only things nginx may expand in it.
var regexRewriteRe = regexp.MustCompile(`^/(?:[A-Za-z0-9._~!&()*+,=:@%/-]|\$[1-9])*$`)

// captureRe finds the capture references of a rewrite regexRewriteRe accepted. nginx reads
// one digit after '$', so "$10" is $1 followed by a literal 0.
var captureRe = regexp.MustCompile(`\$[1-9]`)

// ValidRegexRewrite checks the rewrite of a regex location, which replaces the whole path
// (the query string is kept): it starts with "/", holds literal path characters and
// $1-$9, and each $n names a capture group the location's regex has, so that no rewrite
// depends on a group nginx would leave empty for every request. The regex is valid
// already.
func ValidRegexRewrite(field, rewrite, regex string) error {
	if len(rewrite) > 1024 || !regexRewriteRe.MatchString(rewrite) {
		return Invalid(field, "a regex location's rewrite must start with / and hold only letters, digits, ._~!&()*+,=:@%%/- and $1-$9 naming the regex's capture groups, at most %d", 1024)
	}
	re, err := regexp.Compile(regex)
	if err != nil {
		return Invalid(field, "the path does not compile: %v", err)
	}
	for _, ref := range captureRe.FindAllString(rewrite, -1) {
		if n, _ := strconv.Atoi(ref[1:]); n > re.NumSubexp() {
			return Invalid(field, "rewrite names %s but the path has %d capture groups", ref, re.NumSubexp())
		}
	}
	return nil
}

// validateRewriteFull checks a location's full-path rewrite: a path, and neither a rewrite
// of the matched part nor an answer of the location's own beside it.
func (l *Location) validateRewriteFull() error {
	if l.RewriteFull == "" {
		return nil
	}
	if err := ValidPath("rewriteFull", l.RewriteFull); err != nil {
		return err
	}
	switch {
	case l.Rewrite != "":
		return Invalid("rewriteFull", "rewriteFull replaces the whole path; rewrite replaces a part of it: give one")
	case l.answersItself():
		return Invalid("rewriteFull", "a location that answers itself proxies nothing; a rewrite does not apply")
	}
	return nil
}

// validCaptureRedirect checks a redirect URL that names capture groups: the location is a
// regex, the URL an absolute http(s) URL of ValidAuthURL's grammar once each $1-$9 stands
// for a word, with no other '$', and each group it names is one the regex has.
func (l *Location) validCaptureRedirect() error {
	u := l.Redirect.URL
	if l.Match != MatchRegex {
		return Invalid("redirect.url", "a redirect may name capture groups ($1-$9) on a regex location only")
	}
	for i := 0; i < len(u); i++ {
		if u[i] == '$' && (i+1 == len(u) || u[i+1] < '1' || u[i+1] > '9') {
			return Invalid("redirect.url", "a redirect URL may hold '$' only as a capture group $1-$9")
		}
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return Invalid("redirect.url", "a redirect that names capture groups is an absolute http(s) URL")
	}
	if err := ValidAuthURL("redirect.url", captureRe.ReplaceAllString(u, "x"), true); err != nil {
		return err
	}
	re, err := regexp.Compile(l.Path)
	if err != nil {
		return Invalid("redirect.url", "the path does not compile: %v", err)
	}
	for _, ref := range captureRe.FindAllString(u, -1) {
		if n, _ := strconv.Atoi(ref[1:]); n > re.NumSubexp() {
			return Invalid("redirect.url", "the URL names %s but the path has %d capture groups", ref, re.NumSubexp())
		}
	}
	return nil
}
