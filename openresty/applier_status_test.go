package openresty

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestApplierStatusIsOneSnapshot reads the status while the applier rejects and applies
// revisions in turn: every answer must be one state of the applier, never one caught
// between the updates of fields that belong together (a rejection without its apply
// record, a success recorded while the old revision still shows as applied).
func TestApplierStatusIsOneSnapshot(t *testing.T) {
	s := openStore(t)
	p := &fakeProxy{restarted: make(chan struct{}), rejectOn: "/bad"}
	mustWrite(t, s, web(8001))
	good := mustWrite(t, s, shop("/"))
	a := startApplier(t, s, p)
	waitFor(t, "first apply", func() bool { return a.Status(context.Background()).Applied == good })

	done := make(chan struct{})
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for reads := 0; reads < 1_000_000; reads++ {
			select {
			case <-done:
				return
			default:
			}
			if err := statusConsistent(a.Status(context.Background())); err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := 0; i < 30 && len(errc) == 0; i++ {
		path := fmt.Sprintf("/good%d", i)
		if i%2 == 0 {
			path = fmt.Sprintf("/bad%d", i)
		}
		rev := mustWrite(t, s, shop("/", path))
		waitFor(t, "apply or rejection of "+path, func() bool {
			st := a.Status(context.Background())
			return st.Applied == rev || st.Rejected == rev
		})
	}
	close(done)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

// statusConsistent checks what must hold between the fields of one status.
func statusConsistent(st api.Status) error {
	last := st.LastApply
	switch {
	case last == nil:
		return nil
	case last.Outcome == api.OutcomeSuccess && last.Revision != st.Applied:
		return fmt.Errorf("last apply succeeded at %d while applied is %d: %+v", last.Revision, st.Applied, st)
	case last.Outcome == api.OutcomeRejected && last.Revision != st.Rejected:
		return fmt.Errorf("last apply rejected %d while rejected is %d: %+v", last.Revision, st.Rejected, st)
	case st.Rejected != 0 && last.Revision < st.Rejected:
		return fmt.Errorf("rejected %d without its apply record (last apply is %d): %+v", st.Rejected, last.Revision, st)
	}
	return nil
}
