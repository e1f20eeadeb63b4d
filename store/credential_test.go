package store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestConcurrentJoins: agents that join together all get their credential. A join reads
// (is the name taken, is the fleet full) and then writes; begun as a deferred transaction,
// one whose snapshot another join's commit overtook failed at once with "database is
// locked" instead of waiting for the lock.
func TestConcurrentJoins(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	const agents = 40
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for i := 0; i < agents; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			name := fmt.Sprintf("agent-%02d", i)
			if _, err := s.JoinInstance(ctx, api.Meta{Actor: "token/join"}, name, 100); err != nil {
				errs <- fmt.Errorf("join %s: %w", name, err)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
