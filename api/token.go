package api

import "time"

// Token roles, each including the ones before it.
const (
	RoleViewer = "viewer"
	RoleEditor = "editor"
	RoleAdmin  = "admin"
)

// RoleRank orders roles so that a check reads "rank(have) >= rank(need)"; unknown is 0.
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
	Role     string     `json:"role" enums:"viewer,editor,admin" example:"editor"`
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"lastUsed,omitempty"`
	Secret   string     `json:"secret,omitempty"`
}

// Validate checks a token's name and role.
func (t *Token) Validate() error {
	if err := ValidName("name", t.Name); err != nil {
		return err
	}
	if RoleRank(t.Role) == 0 {
		return Invalid("role", "must be viewer, editor or admin")
	}
	return nil
}
