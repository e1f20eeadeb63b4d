package openresty

import (
	"context"
	"time"
)

// Status is what the applier knows about its instance, for GET /api/v1/status.
type Status struct {
	Instance string `json:"instance"`
	// State is the OpenResty process state: running, starting, stopped, attached.
	State   string `json:"state"`
	Head    int64  `json:"head"`
	Applied int64  `json:"applied"`
	InSync  bool   `json:"inSync"`
	// LastGood is the newest revision that applied and stayed healthy through its watch.
	LastGood int64 `json:"lastGood"`
	// Watching is the revision under health watch after an apply, 0 when none.
	Watching  int64        `json:"watching,omitempty"`
	Rejected  int64        `json:"rejected,omitempty"`
	LastApply *ApplyStatus `json:"lastApply,omitempty"`
}

// ApplyStatus summarises the last apply attempt.
type ApplyStatus struct {
	Revision   int64     `json:"revision"`
	Mode       string    `json:"mode"`
	Outcome    string    `json:"outcome"`
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"durationMs"`
	Error      string    `json:"error,omitempty"`
}

// Status reports the head, what runs, and the last apply.
func (a *Applier) Status(ctx context.Context) Status {
	head := a.store.Head()
	a.mu.Lock()
	defer a.mu.Unlock()
	st := Status{Instance: a.instance, State: a.proxy.State(), Head: head.Revision, LastGood: a.lastGood, Rejected: a.rejected}
	if a.running != nil {
		st.Applied = a.running.Revision
	}
	st.InSync = st.Applied == st.Head
	if a.watch != nil {
		st.Watching = a.watch.revision
	}
	if r := a.last; r != nil {
		st.LastApply = &ApplyStatus{Revision: r.Revision, Mode: r.Mode, Outcome: r.Outcome, Started: r.Started,
			DurationMS: r.DurationMS, Error: r.Error}
	}
	return st
}
