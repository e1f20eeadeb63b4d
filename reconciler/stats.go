package reconciler

import "time"

// Stats describe the reconciler's work so far, for metrics and tests.
type Stats struct {
	// Leader is whether this replica holds the Lease.
	Leader bool
	// Syncs counts finished syncs, Writes those that made a revision, Errors failed ones.
	Syncs, Writes, Errors int64
	// EndpointSyncs counts the syncs that only read the endpoints of changed
	// EndpointSlices again, and kept the rest of the last translation.
	EndpointSyncs int64
	// LastSync is how long the last sync took, from reading the caches to the write.
	LastSync time.Duration
	// LastRevision is the revision the last write made.
	LastRevision int64
	// EventsDropped counts the Events that were said but not posted, each also logged: the
	// API server refused them, could not be reached, or the reporter stopped first.
	EventsDropped int64
	// QueueDepth is the number of pending syncs (0 or 1: there is one key).
	QueueDepth int
}

// Stats returns a copy of the current statistics.
func (r *Reconciler) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func (r *Reconciler) update(f func(*Stats)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.stats)
}
