package api

import "time"

// Apply modes.
const (
	ModeNone    = "none"
	ModeDynamic = "dynamic"
	ModeReload  = "reload"
	ModeFull    = "full" // every dynamic object again, after OpenResty restarted
)

// Apply outcomes.
const (
	OutcomeSuccess    = "success"
	OutcomeRejected   = "rejected"    // nginx refused it; it never went live
	OutcomeFailed     = "failed"      // an error outside nginx's verdict (socket, disk)
	OutcomeRolledBack = "rolled_back" // it went live, made the proxy unhealthy, and was undone
)

// ApplyRecord is one attempt to bring an OpenResty instance to a revision.
type ApplyRecord struct {
	ID       int64     `json:"id"`
	Revision int64     `json:"revision"`
	Instance string    `json:"instance" example:"default"`
	Mode     string    `json:"mode" enums:"none,dynamic,reload,full"`
	Started  time.Time `json:"started"`
	// DurationMS is how long the apply took, in milliseconds.
	DurationMS float64 `json:"durationMs"`
	Outcome    string  `json:"outcome" enums:"success,rejected,failed,rolled_back"`
	// Error is nginx's own error text for a rejected apply.
	Error string `json:"error,omitempty"`
	// Skipped lists the objects this apply left out; the rest of it applied.
	Skipped []SkippedObject `json:"skipped,omitempty"`
}

// SkippedObject is one object an apply could not apply and left out, with why (a name that
// does not resolve, a shared dict that is full); everything else in the apply went live.
// The applier tries it again at every later apply and every RetrySkipped meanwhile.
type SkippedObject struct {
	Kind   string `json:"kind" enums:"backend,certificate"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}
