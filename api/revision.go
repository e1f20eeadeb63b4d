package api

import (
	"encoding/json"
	"time"
)

// Kinds of object in the history.
const (
	KindBackend     = "backend"
	KindServer      = "server"
	KindCertificate = "certificate"
	KindSettings    = "settings"
	// KindHtpasswd is the users of basic auth (policies).
	KindHtpasswd = "htpasswd"
)

// SettingsName is the name of the one settings object.
const SettingsName = "global"

// Change operations.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Actors that are not tokens.
const (
	ActorKubernetes = "kubernetes"
	ActorApplier    = "applier"
	ActorSystem     = "system"
)

// Revision is one immutable step of the history: who, when, why and what.
type Revision struct {
	ID      int64     `json:"id" example:"42"`
	Parent  int64     `json:"parent" example:"41"`
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor" example:"ci-deploy"`
	Source  string    `json:"source" enums:"api,kubernetes,applier,system" example:"api"`
	Message string    `json:"message" example:"move checkout to the new pool"`
	// RollbackOf is the revision whose state this one restored, if it is a rollback.
	RollbackOf int64 `json:"rollbackOf,omitempty"`
	// AutoRollback is false when the writer marked the revision not to be rolled back
	// automatically (X-Auto-Rollback: off or ?autoRollback=false).
	AutoRollback bool     `json:"autoRollback"`
	Changes      []Change `json:"changes,omitempty"`
	// ChangeCount is the number of changes, also when Changes is not loaded.
	ChangeCount int `json:"changeCount"`
}

// Change is one object written by a revision. Body is the new object (absent on delete);
// a certificate's body never holds its key.
type Change struct {
	Kind string          `json:"kind" enums:"backend,server,certificate,settings"`
	Name string          `json:"name"`
	Op   string          `json:"op" enums:"create,update,delete"`
	Body json.RawMessage `json:"body,omitempty" swaggertype:"object"`
}

// Diff is what changed between two revisions, object by object.
type Diff struct {
	From    int64       `json:"from"`
	To      int64       `json:"to"`
	Entries []DiffEntry `json:"entries"`
}

// DiffEntry is one object that differs: its body at From (Before) and at To (After).
type DiffEntry struct {
	Kind   string          `json:"kind"`
	Name   string          `json:"name"`
	Op     string          `json:"op" enums:"create,update,delete"`
	Before json.RawMessage `json:"before,omitempty" swaggertype:"object"`
	After  json.RawMessage `json:"after,omitempty" swaggertype:"object"`
}

// Meta is what a writer says about a write: who, from where, and why.
type Meta struct {
	Actor   string
	Source  string
	Message string
	// IfMatch, when set, is the version the writer last saw: of the object for a
	// single-object write, of the whole config (the head revision) for a config write.
	IfMatch Precondition
	// MustNotExist makes a single-object write fail with a conflict if the object exists
	// (POST semantics).
	MustNotExist bool
	// DryRun computes and validates the write without storing it.
	DryRun bool
	// Remote is the client address, for the audit trail.
	Remote string
	// NoAutoRollback marks the revision not to be rolled back automatically by the applier.
	NoAutoRollback bool
	// NoSettings forbids the write to change the settings: the writer lacks the admin role,
	// and a rollback must not change through the history what PUT /settings would refuse.
	NoSettings bool
	// NoRollbackAfter, when not 0, is the head revision the writer computed the write from
	// (the reconciler's sync): the write fails with EPreconditionFailed when a rollback was
	// committed after it, since mutations computed before a rollback could write again
	// what it undid. Writes of other kinds since do not fail it.
	NoRollbackAfter int64
	// Release names the holds (Hold) the write ends, in its own transaction and audited as
	// their release; a write that changes nothing still ends them.
	Release []Ref
}

// WriteResult is what a write did or, in a dry run, would do.
type WriteResult struct {
	Revision *Revision `json:"revision,omitempty"`
	Diff     Diff      `json:"diff"`
	DryRun   bool      `json:"dryRun"`
	// Noop is true when the write changed nothing and so made no revision.
	Noop bool `json:"noop"`
	// Mode and Validation are filled by the applier's dry run when one is wired.
	Mode       string `json:"mode,omitempty" enums:"none,dynamic,reload"`
	Validation string `json:"validation,omitempty"`
	// Candidate is the state the write makes (or would make); for the applier's dry run.
	Candidate *State `json:"-"`
}
