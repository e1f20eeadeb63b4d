package api

import "time"

// Audit actions.
const (
	AuditWrite       = "write"
	AuditRollback    = "rollback"
	AuditLoginFailed = "login_failed"
	AuditDenied      = "denied"
	AuditTokenCreate = "token_create"
	AuditTokenDelete = "token_delete"
	AuditApply       = "apply"
	AuditRetention   = "retention_set"
	AuditPrune       = "prune"
	// AuditInstanceForget is an admin's removal of an instance from the fleet view.
	AuditInstanceForget = "instance_forget"
	// AuditInstanceJoin is an agent's exchange of a join token for its instance's credential.
	AuditInstanceJoin = "instance_join"
	// AuditInstanceRevoke is an admin's revocation of one instance's credential.
	AuditInstanceRevoke = "instance_revoke"
)

// AuditEvent answers "who did what, when, and with what outcome". Every write, rollback,
// failed login, denied request and apply outcome is one.
type AuditEvent struct {
	ID       int64     `json:"id"`
	Time     time.Time `json:"time"`
	Actor    string    `json:"actor" example:"ci-deploy"`
	Action   string    `json:"action" example:"write"`
	Target   string    `json:"target,omitempty" example:"backend/shop-api"`
	Revision int64     `json:"revision,omitempty"`
	Outcome  string    `json:"outcome" enums:"success,failure" example:"success"`
	Detail   string    `json:"detail,omitempty"`
	Remote   string    `json:"remote,omitempty" example:"127.0.0.1"`
	Count    int       `json:"count,omitempty"`
}

// AuditFilter selects audit events; zero fields do not filter.
type AuditFilter struct {
	Actor  string
	Action string
	Since  time.Time
	Until  time.Time
	// Before pages backwards: only events with an id below it.
	Before int64
	Limit  int
}
