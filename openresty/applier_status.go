package openresty

import (
	"context"

	"github.com/restyplane/restyplane/api"
)

// Status reports the head, what runs, and the last apply.
func (a *Applier) Status(ctx context.Context) api.Status {
	head := a.store.Head()
	a.mu.Lock()
	defer a.mu.Unlock()
	st := api.Status{Instance: a.instance, State: a.proxy.State(), Head: head.Revision, LastGood: a.lastGood, Rejected: a.rejected}
	if a.running != nil {
		st.Applied = a.running.Revision
	}
	st.InSync = st.Applied == st.Head
	if a.watch != nil {
		st.Watching = a.watch.revision
	}
	if a.last != nil {
		last := *a.last
		st.LastApply = &last
	}
	return st
}
