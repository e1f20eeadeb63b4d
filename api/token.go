package api

import "time"

// Token roles, each including the ones before it.
const (
	RoleViewer = "viewer"
	RoleEditor = "editor"
	RoleAdmin  = "admin"
)

// RoleDataplane is the role of a data plane's agent: it may read the feed (which carries
// private keys) and report, and nothing else. It is outside the viewer-editor-admin ladder,
// so that it passes none of their checks, and none of them passes its.
const RoleDataplane = "dataplane"

// ValidRole reports whether role is one a token may have.
func ValidRole(role string) bool { return RoleRank(role) > 0 || role == RoleDataplane }

// RoleRank orders the ladder roles so that a check reads "rank(have) >= rank(need)";
// unknown roles and the dataplane role are 0.
func RoleRank(role string) int {
	switch role {
	case RoleViewer:
		return 1
	case RoleEditor:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Token is an API credential. Only its SHA-256 hash is stored; Secret is filled once, in
// the answer to the request that created it.
type Token struct {
	ID       int64      `json:"id"`
	Name     string     `json:"name" example:"ci-deploy"`
	Role     string     `json:"role" enums:"viewer,editor,admin,dataplane" example:"editor"`
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"lastUsed,omitempty"`
	Secret   string     `json:"secret,omitempty"`
}

// Validate checks a token's name and role.
func (t *Token) Validate() error {
	if err := ValidName("name", t.Name); err != nil {
		return err
	}
	if !ValidRole(t.Role) {
		return Invalid("role", "must be viewer, editor, admin or dataplane")
	}
	return nil
}
