package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// Served is the optional part of a Store that says which revision the proxy serves. A
// Gateway is Programmed once it serves the revision the Gateway's sync was applied at;
// with a Store that cannot say, as soon as that revision is written.
type Served interface {
	ServedRevision(ctx context.Context) (int64, error)
}

// gatewayRecheck is how often the reporter asks whether the proxy serves the revision of
// Gateways that wait to be Programmed.
const gatewayRecheck = 500 * time.Millisecond

// gatewayReporter tells the Gateway API objects what a sync did: the status of classes,
// Gateways and routes, and Events on routes. It works off the newest report alone (each
// report says everything), on its own goroutine, and writes a status only when it
// differs from what it wrote last.
type gatewayReporter struct {
	client   *clients
	served   Served
	address  string
	log      *slog.Logger
	recorder record.EventRecorder
	stopRec  func()
	wake     chan struct{}

	mu   sync.Mutex
	rep  *GatewayReport
	rev  int64
	said map[string]string // route key -> what its Events said
	// wrote is what was last written to each object, by kind, namespace/name and UID.
	wrote map[string]string
}

func newGatewayReporter(client *clients, store Store, opts Options, log *slog.Logger) *gatewayReporter {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.core.Events("")})
	p := &gatewayReporter{client: client, address: opts.GatewayAddress, log: log,
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "restyplane"}), stopRec: b.Shutdown,
		wake: make(chan struct{}, 1), said: map[string]string{}, wrote: map[string]string{}}
	p.served, _ = store.(Served)
	return p
}

// report hands the reporter one sync's report, applied at revision rev.
func (p *gatewayReporter) report(rep *GatewayReport, rev int64) {
	if rep == nil {
		return
	}
	p.mu.Lock()
	p.rep, p.rev = rep, rev
	p.mu.Unlock()
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

func (p *gatewayReporter) stop() { p.stopRec() }

// tell writes the report's statuses and Events; it returns whether a Gateway still waits
// for the proxy to serve rev.
func (p *gatewayReporter) tell(ctx context.Context, rep *GatewayReport, rev int64) bool {
	programmed := true
	if p.served != nil {
		served, err := p.served.ServedRevision(ctx)
		if err != nil {
			p.log.Warn("which revision the proxy serves", "err", err)
		}
		programmed = err == nil && served >= rev
	}
	for _, c := range rep.Classes {
		p.setClass(ctx, c)
	}
	pending := false
	for _, g := range rep.Gateways {
		p.setGateway(ctx, g, programmed, rev)
		pending = pending || (g.Programmable && !programmed)
	}
	keys := make([]string, 0, len(rep.Routes))
	for k := range rep.Routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := rep.Routes[k]
		p.events(k, r, rev)
		p.setRoute(ctx, rep.Controller, r)
	}
	return pending
}

// events records a route's Events, unless the same was said of its generation.
func (p *gatewayReporter) events(key string, r *RouteReport, rev int64) {
	msgs := make([]string, 0, len(r.Problems)+len(r.Notes))
	for _, pb := range append(append([]Problem(nil), r.Problems...), r.Notes...) {
		msgs = append(msgs, pb.Reason+": "+pb.Message)
	}
	sort.Strings(msgs)
	said := fmt.Sprintf("%d %t %s", r.Meta.Generation, r.Applied, strings.Join(msgs, "\n"))
	p.mu.Lock()
	fresh := p.said[key] != said
	p.said[key] = said
	p.mu.Unlock()
	if !fresh {
		return
	}
	ref := &corev1.ObjectReference{Kind: r.Kind, APIVersion: gatewayv1.GroupVersion.String(),
		Namespace: r.Meta.Namespace, Name: r.Meta.Name, UID: r.Meta.UID}
	if r.Applied {
		p.recorder.Eventf(ref, corev1.EventTypeNormal, ReasonApplied, "applied at revision %d", rev)
	}
	for _, pb := range r.Problems {
		p.recorder.Event(ref, corev1.EventTypeWarning, pb.Reason, api.Truncate(pb.Message, maxEventMessage, "…"))
	}
	for _, n := range r.Notes {
		p.recorder.Event(ref, corev1.EventTypeNormal, n.Reason, api.Truncate(n.Message, maxEventMessage, "…"))
	}
}
