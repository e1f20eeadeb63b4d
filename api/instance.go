package api

import "time"

// Report is what an agent tells the control plane about its instance: POST
// /api/v1/instances/{name}/report, after each apply and as a heartbeat.
type Report struct {
	// Version is the agent's restyplane version.
	Version string `json:"version" example:"v0.9.0"`
	// State is its OpenResty's state (running, starting, stopped, ...).
	State string `json:"state" example:"running"`
	// Applied is the revision the instance serves, 0 before the first apply.
	Applied int64 `json:"applied"`
	// Rejected is the head revision the instance's nginx refused, 0 when none.
	Rejected int64 `json:"rejected,omitempty"`
	// Applies are the apply records since the last report that got through.
	Applies []ApplyRecord `json:"applies,omitempty"`
	// Counters are the cumulative request and 5xx counts per server since nginx started.
	Counters map[string]ServerCounter `json:"counters,omitempty"`
	// Backends are the cumulative upstream request and 5xx counts per backend since nginx
	// started, with the distinct failing clients counted since the instance began serving
	// Applied: what the control plane's automatic rollback decides from.
	Backends map[string]BackendCounter `json:"backends,omitempty"`
	// HeldMS is how long the newest successful apply among Applies waited in the agent
	// before this report went out, in milliseconds: the control plane leaves it out of the
	// propagation it measures.
	HeldMS float64 `json:"heldMs,omitempty"`
}

// BackendCounter is one backend's cumulative upstream requests and 5xx answers, and the
// distinct client addresses among the failing requests of the applied revision.
type BackendCounter struct {
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	Clients  int64 `json:"clients,omitempty"`
}

// ServerCounter is one server's cumulative request and 5xx counts.
type ServerCounter struct {
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
}

// MaxHeldMS is the largest HeldMS a report may say, a day. An agent cut off from the
// control plane for longer says this much: its records must still get through.
const MaxHeldMS = 24 * 60 * 60 * 1000

// Validate checks what a report says about itself: every field is bounded. Its apply
// records are the agent's own and are stored as they come, under the instance's name; the
// control plane checks that the revisions it names exist (Revisions).
func (r *Report) Validate() error {
	if len(r.Version) > 100 || len(r.State) > 32 {
		return Invalid("version", "version and state must be short")
	}
	if r.Applied < 0 || r.Rejected < 0 {
		return Invalid("applied", "revisions are not negative")
	}
	if r.HeldMS < 0 || r.HeldMS > MaxHeldMS {
		return Invalid("heldMs", "a wait of 0 to 86400000 milliseconds")
	}
	if len(r.Applies) > MaxReportApplies {
		return Invalid("applies", "at most %d apply records per report", MaxReportApplies)
	}
	for i := range r.Applies {
		if err := r.Applies[i].validateReported(); err != nil {
			return err
		}
	}
	if err := validCounters("counters", r.Counters, func(c ServerCounter) bool { return c.Requests < 0 || c.Errors < 0 }); err != nil {
		return err
	}
	return validCounters("backends", r.Backends, func(c BackendCounter) bool {
		return c.Requests < 0 || c.Errors < 0 || c.Clients < 0
	})
}

// Instance is one OpenResty data plane as the control plane sees it: the answer to GET
// /api/v1/instances.
type Instance struct {
	Name    string `json:"name" example:"edge-1"`
	Version string `json:"version,omitempty"`
	// Managed is true for serve's own OpenResty, which reads the history directly.
	Managed bool `json:"managed,omitempty"`
	// Connected says whether the agent holds an open feed stream now.
	Connected bool      `json:"connected"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	// Applied is the revision it serves; Lag is how many revisions the head is ahead.
	Applied  int64  `json:"applied"`
	Lag      int64  `json:"lag"`
	Rejected int64  `json:"rejected,omitempty"`
	State    string `json:"state"`
	// LastApply is its newest apply attempt, with nginx's error when it was rejected.
	LastApply *ApplyRecord `json:"lastApply,omitempty"`
}

// InstanceList is the answer to GET /api/v1/instances.
type InstanceList struct {
	Items []Instance `json:"items"`
	Head  int64      `json:"head"`
}

// Fleet sums up the instances for GET /api/v1/status.
type Fleet struct {
	Instances int `json:"instances"`
	// AtHead counts the instances that serve the head revision.
	AtHead    int `json:"atHead"`
	Connected int `json:"connected"`
}

// AgentIDHeader carries an agent's identity on its feed and report requests, so that the
// control plane can tell two agents that were given one name apart: it would otherwise
// fold them into one instance, whose revision and state would be each one's in turn.
const AgentIDHeader = "X-Restyplane-Agent-Id"

// ValidAgentID reports whether id is an agent identity as agents make them: 32 lower-case
// hexadecimal digits, kept in the agent's data dir.
func ValidAgentID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
