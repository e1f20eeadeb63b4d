package store

import (
	"sync/atomic"

	"github.com/restyplane/restyplane/api"
)

// applyWatch is the function told of each committed apply record that left objects out;
// nil tells nobody.
type applyWatch = atomic.Pointer[func(api.ApplyRecord)]

// WatchSkips makes fn hear of every apply record, of the managed instance or an agent's
// report, that left objects out, once it is committed: the reconciler tells the Ingresses
// behind them. fn runs on the committing goroutine and must not block.
func (s *FleetStore) WatchSkips(fn func(api.ApplyRecord)) { s.skips.Store(&fn) }

// tellSkips calls the watch for each record that left objects out.
func (c *core) tellSkips(recs ...api.ApplyRecord) {
	fn := c.skips.Load()
	if fn == nil {
		return
	}
	for _, r := range recs {
		if len(r.Skipped) > 0 {
			(*fn)(r)
		}
	}
}
