package reconciler

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// gatewayRecheck is how often the reporter asks whether the proxy serves the revision of
// Gateways that wait to be Programmed.
const gatewayRecheck = 500 * time.Millisecond

// gatewayReporter tells the Gateway API objects what a sync did: the status of classes,
// Gateways and routes, and Events on routes. It works off the newest report alone (each
// report says everything), on its own goroutine, one write at a time, and writes a status
// only when it differs from what it wrote last and from what the object has.
type gatewayReporter struct {
	client *clients
	served Served
	log    *slog.Logger
	out    *eventWriter
	wake   chan struct{}

	mu   sync.Mutex
	rep  *GatewayReport
	rev  int64
	said map[string]verdict // what the Events of each route said, by kind, namespace/name and UID
	// wrote is what was last written to each object, by kind, namespace/name and UID, and
	// versions the resourceVersion that write made (see writeStatus).
	wrote, versions map[string]string
	// configs holds, per Gateway UID, its Config and the revision of the report that
	// changed it last: the revision it is Programmed at.
	configs map[string]gatewayConfig
}

// gatewayConfig is a Gateway's Config as of revision rev.
type gatewayConfig struct {
	config string
	rev    int64
}

// newGatewayReporter returns a reporter that posts to out and starts from what was
// recalled of routes.
func newGatewayReporter(client *clients, store Store, log *slog.Logger, out *eventWriter, recalled map[types.UID]recalled) *gatewayReporter {
	p := &gatewayReporter{client: client, log: log, out: out,
		wake: make(chan struct{}, 1), said: map[string]verdict{}, wrote: map[string]string{}, versions: map[string]string{},
		configs: map[string]gatewayConfig{}}
	for uid, r := range recalled {
		if r.kind == api.ObjectHTTPRoute || r.kind == api.ObjectGRPCRoute {
			p.said[r.kind+" "+r.namespace+"/"+r.name+" "+string(uid)] = verdict{applied: r.applied, said: r.said}
		}
	}
	p.served, _ = store.(Served)
	return p
}

// report hands the reporter one sync's report, applied at revision rev, with the
// objects rollbacks hold back (holdBack's held).
func (p *gatewayReporter) report(rep *GatewayReport, rev int64, held map[api.Ref]api.Hold) {
	if rep == nil {
		return
	}
	rep = heldGatewayReport(rep, held)
	p.mu.Lock()
	p.rep, p.rev = rep, rev
	configs := make(map[string]gatewayConfig, len(rep.Gateways))
	for _, g := range rep.Gateways {
		uid := string(g.Gateway.UID)
		c, ok := p.configs[uid]
		if !ok || c.config != g.Config {
			c = gatewayConfig{config: g.Config, rev: rev}
		}
		configs[uid] = c
	}
	p.configs = configs
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// poke has the reporter look at what the proxy serves again: an apply left something out,
// which a Gateway already Programmed would not otherwise hear of until the next report.
func (p *gatewayReporter) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run reports until ctx ends: at each report, and while a Gateway waits to be
// Programmed, every gatewayRecheck.
func (p *gatewayReporter) run(ctx context.Context) {
	t := time.NewTicker(gatewayRecheck)
	defer t.Stop()
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-t.C:
			if !pending {
				continue
			}
		}
		p.mu.Lock()
		rep, rev := p.rep, p.rev
		p.mu.Unlock()
		if rep != nil {
			pending = p.tell(ctx, rep, rev)
		}
	}
}

// tell writes the report's statuses and Events; it returns whether a Gateway still waits
// for the proxy to serve the revision of its configuration.
func (p *gatewayReporter) tell(ctx context.Context, rep *GatewayReport, rev int64) bool {
	served := Serving{Revision: -1} // with a Store that cannot say, every revision counts as served
	if p.served != nil {
		var err error
		if served, err = p.served.ServedRevision(ctx); err != nil {
			p.log.Warn("which revision the proxy serves", "err", err)
			served = Serving{}
		}
	}
	p.forget(rep)
	for _, c := range rep.Classes {
		p.setClass(ctx, c)
	}
	pending := false
	for _, g := range rep.Gateways {
		p.mu.Lock()
		at := p.configs[string(g.Gateway.UID)].rev
		p.mu.Unlock()
		got := served.of(at)
		if got.served {
			// Served, unless the revision is served without some of what the Gateway
			// makes. The apply that serves it may come without a new revision (the
			// applier's retry), so the reporter keeps looking meanwhile, as for a
			// revision on its way.
			got = served.leftOut(g.Objects)
		}
		pending = pending || (g.Programmable && !got.served)
		if g.Held != "" {
			got = heldProgrammed(g.Held)
		}
		p.setGateway(ctx, g, got)
	}
	keys := make([]string, 0, len(rep.Routes))
	for k := range rep.Routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := rep.Routes[k]
		changed := p.setRoute(ctx, rep.Controller, r)
		p.events(r.objectKey(), r, rev, changed)
	}
	for _, r := range rep.Policies {
		p.setPolicy(ctx, rep.Controller, r)
	}
	return pending
}

// heldProgrammed is what became of what a Gateway or listener serves while a rollback
// holds some of it back (msg says which): the proxy serves the rollback, not what the
// routes ask for, and will not until a route changes: Invalid, as Serving.of says of a
// rolled-back revision. Pending is the spec's word for a change on its way, which a hold
// is not.
func heldProgrammed(msg string) programmed {
	return programmed{reason: gatewayv1.GatewayReasonInvalid, msg: msg}
}
