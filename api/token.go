package api

import "time"

// Token roles, each including the ones before it.
const (
	RoleViewer = "viewer"
	RoleEditor = "editor"
	RoleAdmin  = "admin"
)

// RoleDataplane is the role of a join token: an agent exchanges it once for a credential of
// its own (RoleInstance), and it does nothing else. It is outside the viewer-editor-admin
// ladder, so that it passes none of their checks, and none of them passes its.
const RoleDataplane = "dataplane"

// RoleInstance is the role of one agent's credential, bound to its instance name: it may
// read the feed (which carries private keys) and report, for that instance alone. Only a
// join makes one; it is outside the ladder too.
const RoleInstance = "instance"

// ValidRole reports whether role is one a token may be created with; RoleInstance is not:
// an instance's credential comes from its join.
func ValidRole(role string) bool { return RoleRank(role) > 0 || role == RoleDataplane }

// RoleRank orders the ladder roles so that a check reads "rank(have) >= rank(need)";
// unknown roles and the fleet's roles are 0.
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
	ID   int64  `json:"id"`
	Name string `json:"name" example:"ci-deploy"`
	Role string `json:"role" enums:"viewer,editor,admin,dataplane,instance" example:"editor"`
	// Instance is, for role instance, the instance name the credential speaks for.
	Instance string     `json:"instance,omitempty" example:"edge-1"`
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

// Credential is the answer to an agent's join: the secret it keeps (0600, in its data dir)
// and sends instead of the join token from then on, for Instance alone. It is shown once.
type Credential struct {
	Instance string `json:"instance" example:"edge-1"`
	Secret   string `json:"secret"`
}
