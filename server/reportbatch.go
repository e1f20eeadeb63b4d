package server

import (
	"context"
	"sync"

	"github.com/restyplane/restyplane/api"
)

// reportBatchMax bounds how many reports go into one transaction.
const reportBatchMax = 256

// reportBatcher stores the agents' reports by group commit: the first report to arrive
// stores itself at once, and the reports that arrive while it does wait and are then stored
// together, in one transaction. After a change all agents report within moments; one
// SQLite transaction each, contending for the one write lock, cost the control plane more
// CPU than the change itself. A lone report waits for nothing.
type reportBatcher struct {
	mu    sync.Mutex
	queue []*queuedReport
	busy  bool // a caller is storing batches
}

type queuedReport struct {
	r    api.InstanceReport
	done chan error
}

// store stores r, with whatever else is queued, and returns its own outcome.
func (b *reportBatcher) store(st Fleet, r api.InstanceReport) error {
	q := &queuedReport{r: r, done: make(chan error, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, q)
	lead := !b.busy
	b.busy = true
	b.mu.Unlock()
	if lead {
		b.drain(st, q)
	}
	return <-q.done
}

// drain stores batches until the queue is empty. A caller stops once its own report is
// stored and leaves the rest to a goroutine, so that no agent's report waits behind an
// endless stream of others.
func (b *reportBatcher) drain(st Fleet, own *queuedReport) {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.busy = false
			b.mu.Unlock()
			return
		}
		n := min(len(b.queue), reportBatchMax)
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		commitReports(st, batch)
		if own != nil && len(own.done) > 0 {
			go b.drain(st, nil)
			return
		}
	}
}

// commitReports stores a batch in one transaction; when that fails, each report alone, so
// that one report's failure is not the others'.
func commitReports(st Fleet, batch []*queuedReport) {
	// Stored whatever happens to the request that brought it: its agent already sent it.
	ctx := context.Background()
	reps := make([]api.InstanceReport, len(batch))
	for i, q := range batch {
		reps[i] = q.r
	}
	err := st.RecordReports(ctx, reps)
	if err != nil && len(batch) > 1 {
		for _, q := range batch {
			q.done <- st.RecordReports(ctx, []api.InstanceReport{q.r})
		}
		return
	}
	for _, q := range batch {
		q.done <- err
	}
}
