package api

// Bounds of a report: what one agent may make the control plane store or hold in memory.
const (
	// MaxReportApplies is how many apply records one report carries at most; an agent with
	// more pending sends them in several reports.
	MaxReportApplies = 100
	// MaxReportCounters is how many servers, and how many backends, a report counts at most.
	MaxReportCounters = 20000
	// MaxApplyError is the longest error text an apply record keeps, in bytes.
	MaxApplyError = 8192
	// MaxSkipped is how many skipped objects an apply record lists at most.
	MaxSkipped = 100
	// MaxSkippedReason is the longest reason a skipped object keeps, in bytes.
	MaxSkippedReason = 1024
	// maxCounterName bounds a counter's server or backend name.
	maxCounterName = 253
)

// Clamp cuts what an apply record says to the bounds a report accepts, so that an agent's
// record is never refused (which would hold back every record after it) for the length of
// nginx's error text or the number of objects it skipped.
func (a *ApplyRecord) Clamp() {
	a.Error = Truncate(a.Error, MaxApplyError, "")
	if len(a.Skipped) > MaxSkipped {
		a.Skipped = a.Skipped[:MaxSkipped]
	}
	for i := range a.Skipped {
		s := &a.Skipped[i]
		s.Kind = Truncate(s.Kind, 32, "")
		s.Name = Truncate(s.Name, maxCounterName, "")
		s.Reason = Truncate(s.Reason, MaxSkippedReason, "")
	}
}

// validateReported checks one apply record an agent sent; its revision is checked against
// the history by the control plane.
func (a *ApplyRecord) validateReported() error {
	switch a.Mode {
	case ModeNone, ModeDynamic, ModeReload, ModeFull:
	default:
		return Invalid("applies.mode", "must be none, dynamic, reload or full")
	}
	switch a.Outcome {
	case OutcomeSuccess, OutcomeRejected, OutcomeFailed, OutcomeRolledBack:
	default:
		return Invalid("applies.outcome", "must be success, rejected, failed or rolled_back")
	}
	if a.Revision < 0 {
		return Invalid("applies.revision", "revisions are not negative")
	}
	if a.DurationMS < 0 || a.DurationMS > MaxHeldMS {
		return Invalid("applies.durationMs", "a duration of 0 to 86400000 milliseconds")
	}
	if len(a.Error) > MaxApplyError {
		return Invalid("applies.error", "at most %d bytes", MaxApplyError)
	}
	if len(a.Skipped) > MaxSkipped {
		return Invalid("applies.skipped", "at most %d skipped objects", MaxSkipped)
	}
	for _, s := range a.Skipped {
		if len(s.Kind) > 32 || len(s.Name) > maxCounterName || len(s.Reason) > MaxSkippedReason {
			return Invalid("applies.skipped", "a skipped object's kind, name and reason are at most 32, %d and %d bytes", maxCounterName, MaxSkippedReason)
		}
	}
	return nil
}

// validCounters checks the keys and values of a report's counters.
func validCounters[T any](field string, m map[string]T, negative func(T) bool) error {
	if len(m) > MaxReportCounters {
		return Invalid(field, "at most %d", MaxReportCounters)
	}
	for name, c := range m {
		if name == "" || len(name) > maxCounterName {
			return Invalid(field, "names of 1 to %d bytes", maxCounterName)
		}
		if negative(c) {
			return Invalid(field, "counts are not negative")
		}
	}
	return nil
}

// Revisions lists every revision a report names (served, rejected, and its apply
// records'), for the control plane to check that each exists.
func (r *Report) Revisions() []int64 {
	out := []int64{r.Applied, r.Rejected}
	for _, a := range r.Applies {
		out = append(out, a.Revision)
	}
	return out
}
