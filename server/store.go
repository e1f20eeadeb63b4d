package server

import (
	"context"
	"time"

	"github.com/restyplane/restyplane/api"
)

// History is what the server needs of the history: the head, writes, and reads of the
// past. *store.HistoryStore implements it, and each interface below has its aggregate of
// package store; the guards live in cmd/restyplane, the one package that imports both.
type History interface {
	Head() *api.State
	HeadChanged() <-chan struct{}
	// HistoryID names the history; the feed carries it.
	HistoryID() string

	Write(ctx context.Context, meta api.Meta, muts []api.Mutation) (*api.WriteResult, error)
	ReplaceConfig(ctx context.Context, meta api.Meta, cfg api.Config) (*api.WriteResult, error)
	Rollback(ctx context.Context, meta api.Meta, to int64) (*api.WriteResult, error)

	State(ctx context.Context, rev int64, withKeys bool) (*api.State, error)
	Diff(ctx context.Context, from, to int64) (api.Diff, error)
	Revisions(ctx context.Context, before int64, limit int) ([]api.Revision, error)
	Revision(ctx context.Context, id int64) (*api.Revision, error)
	RevisionCount(ctx context.Context) (int64, error)

	// Holds are the objects rollbacks took back from what Kubernetes wrote (api.Hold);
	// the caller must not modify the map. ReleaseHolds ends those on refs, audited.
	Holds() map[api.Ref]api.Hold
	ReleaseHolds(ctx context.Context, meta api.Meta, refs []api.Ref) (int, error)
}

// Tokens is the API's tokens and the instances' credentials.
type Tokens interface {
	CreateToken(ctx context.Context, name, role, secret string) (*api.Token, error)
	Authenticate(ctx context.Context, secret string) (*api.Token, error)
	Tokens(ctx context.Context) ([]api.Token, error)
	DeleteToken(ctx context.Context, id int64) error

	JoinInstance(ctx context.Context, meta api.Meta, name string, max int) (*api.Credential, error)
	RevokeInstance(ctx context.Context, name string) error
	ForgetCredential(ctx context.Context, name string) (bool, error)
	Revocations(ctx context.Context) (map[string]bool, error)
}

// Audit is the audit log.
type Audit interface {
	AddAudit(ctx context.Context, ev api.AuditEvent) error
	AddAuditRow(ctx context.Context, ev api.AuditEvent) (int64, error)
	AddAuditCount(ctx context.Context, id int64, n int) error
	AuditEvents(ctx context.Context, f api.AuditFilter) ([]api.AuditEvent, error)
}

// Fleet is the instances that report and their apply records.
type Fleet interface {
	Applies(ctx context.Context, before int64, limit int) ([]api.ApplyRecord, error)
	LastApply(ctx context.Context, outcome string) (*api.ApplyRecord, error)
	RecordReports(ctx context.Context, reps []api.InstanceReport) error
	Instances(ctx context.Context) ([]api.Instance, error)
	DeleteInstance(ctx context.Context, name string) error
}

// Retention is the history's retention policy and its pruning.
type Retention interface {
	Retention(ctx context.Context) (api.Retention, error)
	SetRetention(ctx context.Context, meta api.Meta, r api.Retention) (api.Retention, error)
	Prune(ctx context.Context, meta api.Meta, now time.Time) (api.PruneResult, error)
}

// CounterSink receives, with each agent report, the instance's per-backend counters and
// the revision they are for: the automatic rollback decides from them. *rollback.Watcher
// implements it; the guard lives in cmd/restyplane, which wires them.
type CounterSink interface {
	Observe(instance string, applied int64, counters map[string]api.BackendCounter)
	// Watching is the revision under watch (0 when none) and the newest that stayed
	// healthy through its window, for /status.
	Watching() (revision, lastGood int64)
}

// Applier is what the server asks of the OpenResty applier when one runs; it is nil when
// OpenResty is off, and then /status reports the instance as off and dry runs carry no
// apply mode or validation.
type Applier interface {
	// Status reports the instance's state, the revision it serves and the last apply.
	Status(ctx context.Context) api.Status
	// DryRun says how the applier would bring the instance to candidate (none, dynamic or
	// reload) and whether the rendered configuration passes nginx -t ("ok" or nginx's
	// error text). It changes nothing.
	DryRun(ctx context.Context, candidate *api.State) (mode, validation string, err error)
	// ApplyNow brings the instance to the head on the caller's goroutine when that takes
	// only a dynamic push and no apply is running; otherwise the applier's own loop does.
	ApplyNow(ctx context.Context)
}
