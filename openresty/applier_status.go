package openresty

import (
	"context"

	"github.com/restyplane/restyplane/api"
)

// Status reports the head, what runs, and the last apply, as one snapshot: the applier
// changes the fields that belong together in one critical section, and the head is read
// under the same lock so that it is never older than the revision shown applied.
func (a *Applier) Status(ctx context.Context) api.Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	head := a.store.Head()
	st := api.Status{Instance: a.instance, State: a.proxy.State(), Head: head.Revision, Rejected: a.rejected}
	if a.running != nil {
		st.Applied = a.running.Revision
	}
	// Every revision that applied is good as far as the applier knows: the rollback
	// watcher, which decides from the fleet's counters, overlays its own view.
	st.LastGood = st.Applied
	st.InSync = st.Applied == st.Head
	if a.last != nil {
		last := *a.last
		st.LastApply = &last
	}
	return st
}
