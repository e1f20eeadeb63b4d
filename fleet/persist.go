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

// persistLoop writes each applied state to disk, the newest first when the disk is slow.
// A whole state is written after the report of its apply went out: the report is what the
// control plane and the fleet view wait for, and encoding and syncing a whole state on a
// busy core ahead of it delayed every change's propagation. A journal line (the common
// case) is written at once: appending a delta of a few hundred bytes costs less than the
// wait, whose timer and wake-up after the report's answer cost every agent a little CPU
// per change. RecordApply wakes the report first, so the line still follows the report.
func (f *Follower) persistLoop(ctx context.Context) {
	defer f.disk.closeJournal()
	for {
		var it persistItem
		select {
		case <-ctx.Done():
			return
		case it = <-f.persist:
		}
		if f.disk.whole(it.held) {
			if !f.waitReported(ctx, it.seq) {
				return
			}
			// A newer state may have come while this one waited: it wins.
			select {
			case newer := <-f.persist:
				it = newer
			default:
			}
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
