package api

import (
	"slices"
	"strconv"
	"strings"
)

// Precondition is an If-Match condition (RFC 9110 section 13.1.1) as the store checks it,
// under its writer lock, against the version of what a write replaces: an object's version
// for a single-object write, the head revision for a config write or a rollback. The zero
// value is no condition.
type Precondition struct {
	// Set says that the request carried the condition; with neither Any nor Versions it
	// can never hold (every tag it listed was weak or named no version).
	Set bool
	// Any is "*": the target must exist.
	Any bool
	// Versions are the versions the strong tags of the list name; one must be the
	// target's.
	Versions []int64
}

// IfVersion is the condition that the target is at version v.
func IfVersion(v int64) Precondition {
	return Precondition{Set: true, Versions: []int64{v}}
}

// Holds reports whether a target at version, existing or not, meets the condition.
func (p Precondition) Holds(version int64, exists bool) bool {
	switch {
	case !p.Set:
		return true
	case !exists:
		return false
	case p.Any:
		return true
	}
	return slices.Contains(p.Versions, version)
}

// String renders the condition for error messages.
func (p Precondition) String() string {
	if p.Any {
		return "*"
	}
	if len(p.Versions) == 0 {
		return "no version"
	}
	tags := make([]string, len(p.Versions))
	for i, v := range p.Versions {
		tags[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(tags, " or ")
}
