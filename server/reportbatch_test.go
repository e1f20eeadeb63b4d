package server

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// batchStore records the sizes of the batches it is given; the first waits for gate, and
// any batch holding the instance "bad" fails.
type batchStore struct {
	Fleet
	gate  chan struct{}
	mu    sync.Mutex
	sizes []int
}

func (b *batchStore) RecordReports(ctx context.Context, reps []api.InstanceReport) error {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(reps))
	first := len(b.sizes) == 1
	b.mu.Unlock()
	if first {
		<-b.gate
	}
	for _, r := range reps {
		if r.Name == "bad" {
			return errors.New("refused")
		}
	}
	return nil
}

// TestReportsArrivingTogetherShareATransaction: the reports that arrive while one is being
// stored are stored next, together; a batch that fails is retried report by report, so
// only the failing report's agent sees the error.
func TestReportsArrivingTogetherShareATransaction(t *testing.T) {
	st := &batchStore{gate: make(chan struct{})}
	var b reportBatcher
	errs := make(chan error, 11)
	go func() { errs <- b.store(st, api.InstanceReport{Name: "first", Report: &api.Report{}}) }()
	deadline := time.Now().Add(30 * time.Second)
	for { // until the first is being stored
		st.mu.Lock()
		n := len(st.sizes)
		st.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first report is not being stored")
		}
		time.Sleep(time.Millisecond)
	}
	names := []string{"a", "b", "c", "bad", "d", "e", "f", "g", "h", "i"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]error{}
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := b.store(st, api.InstanceReport{Name: n, Report: &api.Report{}})
			mu.Lock()
			got[n] = err
			mu.Unlock()
		}()
	}
	for {
		b.mu.Lock()
		n := len(b.queue)
		b.mu.Unlock()
		if n == len(names) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reports queued behind the first, want %d", n, len(names))
		}
		time.Sleep(time.Millisecond)
	}
	close(st.gate)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, n := range names {
		if (got[n] != nil) != (n == "bad") {
			t.Errorf("report of %s: %v", n, got[n])
		}
	}
	st.mu.Lock()
	// The first alone, the ten together (refused for "bad"), then the ten one by one.
	if len(st.sizes) != 12 || st.sizes[0] != 1 || st.sizes[1] != len(names) {
		t.Fatalf("batch sizes %v, want 1, %d, then ten of 1", st.sizes, len(names))
	}
	st.mu.Unlock()
	// The goroutine that stored the ten lets go once the queue is empty.
	for {
		b.mu.Lock()
		idle := !b.busy && len(b.queue) == 0
		b.mu.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batcher stays busy with an empty queue")
		}
		time.Sleep(time.Millisecond)
	}
}
