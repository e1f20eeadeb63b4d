package fleet

import (
	"context"
	"time"
)

// persistAfterReport bounds how long an applied state waits for the report of its apply
// before it is written anyway: a control plane that does not answer delays the file by
// this much at most.
const persistAfterReport = 2 * time.Second

// persistItem is an applied state to write, and the sequence number of its apply record.
type persistItem struct {
	held heldState
	seq  int64
}

// persistLoop writes each applied state to disk, the newest first when the disk is slow,
// once the report of its apply went out (or persistAfterReport passed). Writing when the
// apply ended, a whole state or even a journal line of a few hundred bytes, was work on
// the way of the change's propagation while the other instances of the fleet still
// applied it (a file write is a system call that wakes the runtime's monitor thread for
// the rest of the burst, see quietconn). After the report's answer the agent is awake
// anyway, and the change is live everywhere. A state not yet written is what a kill -9
// right after nginx took its push loses (the report's 50 ms, at most persistAfterReport
// more): the agent then starts from the one before, and the feed resends the rest; should
// the control plane be gone as well, it serves the one before until the control plane
// returns.
func (f *Follower) persistLoop(ctx context.Context) {
	defer f.disk.closeJournal()
	for {
		var it persistItem
		select {
		case <-ctx.Done():
			return
		case it = <-f.persist:
		}
		if !f.waitReported(ctx, it.seq) {
			return
		}
		// A newer state may have come while this one waited: it wins.
		select {
		case newer := <-f.persist:
			it = newer
		default:
		}
		if err := f.disk.write(f.opts.DataDir, it.held); err != nil {
			f.log.Error("persist the applied state", "revision", it.held.st.Revision, "err", err)
		}
	}
}

// waitReported waits until a report attempt carried apply record seq, or at most
// persistAfterReport; false when ctx ended.
func (f *Follower) waitReported(ctx context.Context, seq int64) bool {
	limit := time.NewTimer(persistAfterReport)
	defer limit.Stop()
	for {
		f.mu.Lock()
		done := f.reportedUpTo >= seq
		f.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-limit.C:
			return true
		case <-f.reportDone:
		}
	}
}
