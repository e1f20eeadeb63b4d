package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// The route the bare mechanism moves on every agent's nginx, behind the agents' backs:
// restyplane's changes move b-0000, so the two never disagree about what nginx holds.
const (
	bareFleetHost    = "bare.fleet.test"
	bareFleetBackend = "b-bare"
	// fleetBareRest is the pause after a bare change, and after the wait for the fleet
	// view that follows each of restyplane's: the next change of either starts on a quiet
	// machine, not while the agents still write their journal lines after the reports
	// that the fleet view waited for.
	fleetBareRest = 100 * time.Millisecond
)

// fleetBareText says what the bare mechanism's row is, for the report; its verbs take the
// number of changes, the round, the rest, the ratios of restyplane's p50 and p99 to the
// bare mechanism's, and its CPU per change.
const fleetBareText = "The floor: on the same 50 nginx, in the same run, %d changes of a second route (its own backend, which no revision touches) by the " +
	"mechanism restyplane builds on, with no control plane and no agent: the benchmark POSTs the changed backend with a new version to every " +
	"nginx's Lua admin socket at once and polls as above (rounds of %d changes of each system in turn, the order turning each round; %s of rest after each " +
	"change of either, after the wait for the fleet view for restyplane's). restyplane ÷ bare: p50 %.2f, p99 %.2f. CPU per bare change: %s. " +
	"The pollers' requests are most of what nginx does per change, and they are the same for both.\n\n"

// barePusher is the mechanism restyplane builds on, for a whole fleet: the benchmark
// POSTs the changed backend with a new version to every nginx's Lua admin socket at once,
// as the control plane writes its feed lines to every agent at once, with no control
// plane and no agent in the way. Its propagation is the floor of the fleet's on this
// machine: the same nginx, the same pollers, the same cores.
type barePusher struct {
	admins  []*nginx.AdminClient
	version int64
	at      int
}

func newBarePusher(agents []*rptest.Agent) *barePusher {
	p := &barePusher{version: 1 << 40} // far above any revision: it only has to change
	for _, a := range agents {
		p.admins = append(p.admins, nginx.NewAdminClient(nginx.SocketPath(filepath.Join(a.DataDir, "openresty"))))
	}
	return p
}

// change moves the bare backend to the other of ups on every instance and returns when
// the last proxy first answered from it; hops gets when each push was answered and each
// proxy answered from the new upstream, and win what procs used until then.
func (f *fleet) bareChange(ups [2]*upstream, hops *fleetHops, procs fleetProcs, win *fleetSample) (time.Duration, error) {
	p := f.bare
	p.at, p.version = 1-p.at, p.version+1
	up := ups[p.at]
	s0 := procs.sample(false)
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(p.admins))
	pushed := make([]time.Duration, len(p.admins))
	for i, c := range p.admins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := c.PushBackends(ctx, p.version, []api.Backend{{Name: bareFleetBackend, Endpoints: up.endpoints()}}, nil, false); err != nil {
				errs <- fmt.Errorf("bare push to agent %d: %w", i+1, err)
			}
			pushed[i] = time.Since(t0)
		}()
	}
	// The pollers start with the pushes: the pushes answer only once nginx applied them.
	total, seen, err := f.pollAll(f.barePollers, t0, up.name, fleetPollBudget, fleetPollDeadline)
	*win = win.add(procs.sample(true).sub(s0))
	wg.Wait()
	close(errs)
	if perr := <-errs; perr != nil {
		return 0, perr
	}
	if err == nil {
		hops.addBare(pushed, seen)
	}
	time.Sleep(fleetBareRest)
	return total, err
}
