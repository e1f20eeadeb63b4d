package api

import "time"

// Retention is the history's retention policy. A revision is pruned only when it is older
// than both limits: it is not among the newest KeepRevisions and it was written more than
// KeepDays days ago. Zero KeepRevisions turns pruning off, which is the default: history is
// kept for ever unless an admin says otherwise.
type Retention struct {
	KeepRevisions int64 `json:"keepRevisions" example:"1000"`
	KeepDays      int64 `json:"keepDays" example:"90"`
	// KeepRecordsDays is how long apply records and audit events are kept, whether the
	// history is pruned or not; 0 in a PUT means the default, DefaultKeepRecordsDays.
	KeepRecordsDays int64 `json:"keepRecordsDays" example:"90"`
	// Floor is the oldest revision that can still be read; older ones were pruned.
	// Read-only: a PUT ignores it.
	Floor int64 `json:"floor,omitempty" example:"0"`
}

// MaxKeepDays bounds KeepDays so that the cutoff time never overflows.
const MaxKeepDays = 100 * 365

// DefaultKeepRecordsDays is how long apply records and audit events are kept unless an
// admin says otherwise.
const DefaultKeepRecordsDays = 90

// Validate checks the policy.
func (r Retention) Validate() error {
	if r.KeepRevisions < 0 {
		return Invalid("keepRevisions", "keepRevisions must be 0 (off) or more")
	}
	if r.KeepDays < 0 || r.KeepDays > MaxKeepDays {
		return Invalid("keepDays", "keepDays must be between 0 and %d", MaxKeepDays)
	}
	if r.KeepRecordsDays < 0 || r.KeepRecordsDays > MaxKeepDays {
		return Invalid("keepRecordsDays", "keepRecordsDays must be between 0 (the default, %d) and %d", DefaultKeepRecordsDays, MaxKeepDays)
	}
	return nil
}

// RecordsCutoff is the time before which apply records and audit events are pruned.
func (r Retention) RecordsCutoff(now time.Time) time.Time {
	days := r.KeepRecordsDays
	if days <= 0 {
		days = DefaultKeepRecordsDays
	}
	return now.Add(-time.Duration(days) * 24 * time.Hour)
}

// Enabled says whether the policy prunes anything at all.
func (r Retention) Enabled() bool { return r.KeepRevisions > 0 }

// Cutoff is the time before which a revision may be pruned.
func (r Retention) Cutoff(now time.Time) time.Time {
	return now.Add(-time.Duration(r.KeepDays) * 24 * time.Hour)
}

// PruneResult says what one prune removed.
type PruneResult struct {
	// Revisions is how many revisions became unreadable; RevisionRows how many of their
	// rows went (some stay, marked pruned, because kept rows still point at them).
	Revisions    int64 `json:"revisions"`
	RevisionRows int64 `json:"revisionRows"`
	ObjectRows   int64 `json:"objectRows"`
	Applies      int64 `json:"applies"`
	AuditEvents  int64 `json:"auditEvents"`
	// Floor is the oldest revision kept after the prune (0: nothing pruned ever).
	Floor int64 `json:"floor"`
}
