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
}
