package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// The conditional requests of RFC 9110 section 13. Versions are strong entity tags ("42");
// If-Match compares strongly (a weak tag never matches), If-None-Match weakly. A tag that
// names no version ("stale-0") is well formed and matches nothing: the condition fails
// (412 for If-Match) as for any other tag that does not match. A malformed If-Match is a
// 400: ignoring it would turn a conditional write into an unconditional one, the opposite
// of what the client asked. A malformed If-None-Match is ignored and the GET answered in
// full, which costs a client nothing but bytes.

// entityTag is one member of an If-Match or If-None-Match list.
type entityTag struct {
	weak   bool
	opaque string
}

// version returns the version a tag names, if it names one.
func (t entityTag) version() (int64, bool) {
	if t.opaque == "" || strings.TrimLeft(t.opaque, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(t.opaque, 10, 64)
	return v, err == nil && v > 0
}

// parseETags reads a field value of the form "*" / #entity-tag (RFC 9110 sections 8.8.3,
// 13.1.1): several field lines are one comma-separated list, and empty list members are
// allowed. ok is false when the value does not follow the grammar or names nothing.
func parseETags(lines []string) (star bool, tags []entityTag, ok bool) {
	h := strings.Trim(strings.Join(lines, ","), " \t")
	if h == "*" {
		return true, nil, true
	}
	for i := 0; ; {
		for i < len(h) && (h[i] == ' ' || h[i] == '\t' || h[i] == ',') {
			i++
		}
		if i == len(h) {
			break
		}
		var t entityTag
		if strings.HasPrefix(h[i:], "W/") {
			t.weak, i = true, i+2
		}
		if i == len(h) || h[i] != '"' {
			return false, nil, false
		}
		end := i + 1
		for ; end < len(h) && h[end] != '"'; end++ {
			if c := h[end]; c < 0x21 || c == 0x7f { // etagc: no controls, spaces or DQUOTE
				return false, nil, false
			}
		}
		if end == len(h) {
			return false, nil, false
		}
		t.opaque, i = h[i+1:end], end+1
		tags = append(tags, t)
		for i < len(h) && (h[i] == ' ' || h[i] == '\t') {
			i++
		}
		if i < len(h) && h[i] != ',' {
			return false, nil, false
		}
	}
	return false, tags, len(tags) > 0
}

// parseIfMatch reads a request's If-Match into the condition the store checks.
func parseIfMatch(r *http.Request) (api.Precondition, error) {
	lines := r.Header.Values("If-Match")
	if len(lines) == 0 {
		return api.Precondition{}, nil
	}
	star, tags, ok := parseETags(lines)
	if !ok {
		return api.Precondition{}, &api.Error{Code: api.EInvalid, Field: "If-Match",
			Message: `If-Match must be "*" or a list of entity tags such as "42", "43"`}
	}
	p := api.Precondition{Set: true, Any: star}
	for _, t := range tags {
		if v, ok := t.version(); ok && !t.weak {
			p.Versions = append(p.Versions, v)
		}
	}
	return p, nil
}

// conditionalGet evaluates a GET's preconditions against the version it would answer
// with: a failing If-Match is a 412, and an If-None-Match that matches (or "*") is
// answered 304 with the ETag, and done is true.
func conditionalGet(w http.ResponseWriter, r *http.Request, version int64) (done bool, err error) {
	im, err := parseIfMatch(r)
	if err != nil {
		return false, err
	}
	if !im.Holds(version, true) {
		return false, api.Errorf(api.EPreconditionFailed, "the version is %d, not %s", version, im)
	}
	star, tags, ok := parseETags(r.Header.Values("If-None-Match"))
	if !ok {
		return false, nil
	}
	match := star
	for _, t := range tags {
		if v, ok := t.version(); ok && v == version {
			match = true
		}
	}
	if !match {
		return false, nil
	}
	w.Header().Set("ETag", etag(version))
	w.WriteHeader(http.StatusNotModified)
	return true, nil
}
