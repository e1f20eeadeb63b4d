package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

	"github.com/restyplane/restyplane/api"
)

// maxEventMessage bounds an Event's message.
const maxEventMessage = 1000

// reporter tells Ingresses what a sync did with them: Events, and status.loadBalancer. It
// works off its own queue so that a sync never waits on the API server for thousands of
// status writes, and it reports an Ingress again only when what it would say changed.
type reporter struct {
	client      *clients
	address     string
	log         *slog.Logger
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
	queue       workqueue.TypedInterface[string]

	mu      sync.Mutex
	pending map[string]pendingReport // by Ingress key
	last    map[string]string        // what was last said to each Ingress
}

type pendingReport struct {
	rep *Report
	rev int64
}

func newReporter(client *clients, address string, log *slog.Logger) *reporter {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.core.Events("")})
	return &reporter{client: client, address: address, log: log, broadcaster: b,
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "restyplane"}),
		queue:    workqueue.NewTyped[string](), pending: map[string]pendingReport{}, last: map[string]string{}}
}

// report queues the reports of one sync, applied at revision rev.
func (p *reporter) report(reports map[string]*Report, rev int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key := range p.last {
		if reports[key] == nil {
			delete(p.last, key)
		}
	}
	for key, rep := range reports {
		p.pending[key] = pendingReport{rep: rep, rev: rev}
		p.queue.Add(key)
	}
}

// run reports until ctx ends.
func (p *reporter) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		p.queue.ShutDown()
	}()
	for {
		key, shutdown := p.queue.Get()
		if shutdown {
			return
		}
		p.mu.Lock()
		pr, ok := p.pending[key]
		delete(p.pending, key)
		p.mu.Unlock()
		if ok {
			p.tell(ctx, key, pr)
		}
		p.queue.Done(key)
	}
}

func (p *reporter) stop() {
	p.queue.ShutDown()
	p.broadcaster.Shutdown()
}

// tell records the report's Events, unless the same was already said about the same
// generation of the Ingress, and brings its status to the address if it is applied.
func (p *reporter) tell(ctx context.Context, key string, pr pendingReport) {
	rep, ing := pr.rep, pr.rep.Ingress
	said := saying(rep)
	p.mu.Lock()
	fresh := p.last[key] != said
	p.last[key] = said
	p.mu.Unlock()
	if fresh {
		if rep.Applied {
			p.recorder.Eventf(ing, corev1.EventTypeNormal, ReasonApplied, "applied at revision %d", pr.rev)
		}
		for _, pb := range rep.Problems {
			p.recorder.Event(ing, corev1.EventTypeWarning, pb.Reason, api.Truncate(pb.Message, maxEventMessage, "…"))
		}
		for _, n := range rep.Notes {
			p.recorder.Event(ing, corev1.EventTypeNormal, n.Reason, api.Truncate(n.Message, maxEventMessage, "…"))
		}
	}
	if p.address == "" {
		return
	}
	var want []networkingv1.IngressLoadBalancerIngress
	if rep.Applied {
		lb := networkingv1.IngressLoadBalancerIngress{Hostname: p.address}
		if net.ParseIP(p.address) != nil {
			lb = networkingv1.IngressLoadBalancerIngress{IP: p.address}
		}
		want = []networkingv1.IngressLoadBalancerIngress{lb}
	}
	if sameLoadBalancer(ing.Status.LoadBalancer.Ingress, want) {
		return
	}
	if err := p.setStatus(ctx, ing, want); err != nil && ctx.Err() == nil {
		p.log.Error("update ingress status", "ingress", key, "err", err)
	}
}

// setStatus writes the status on a copy of the cached Ingress, which is almost always
// current: one request per Ingress instead of a read and a write, which matters at the
// client's rate limit with thousands of Ingresses. Only when the cache was stale (a
// conflict) does it read a fresh copy and try again. The cache's object is never modified.
func (p *reporter) setStatus(ctx context.Context, ing *networkingv1.Ingress, want []networkingv1.IngressLoadBalancerIngress) error {
	ings := p.client.networking.Ingresses(ing.Namespace)
	cur := ing.DeepCopy()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if cur == nil {
			fresh, err := ings.Get(ctx, ing.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("get: %w", err)
			}
			if fresh.UID != ing.UID || sameLoadBalancer(fresh.Status.LoadBalancer.Ingress, want) {
				return nil
			}
			cur = fresh
		}
		cur.Status.LoadBalancer.Ingress = want
		_, err := ings.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		cur = nil // a retry starts from the API server's copy
		return err
	})
}

// saying is what a report says to its Ingress, for telling each thing once per generation.
func saying(rep *Report) string {
	msgs := make([]string, 0, len(rep.Problems)+len(rep.Notes))
	for _, pb := range append(append([]Problem(nil), rep.Problems...), rep.Notes...) {
		msgs = append(msgs, pb.Reason+": "+pb.Message)
	}
	sort.Strings(msgs)
	return fmt.Sprintf("%d %t %s", rep.Ingress.Generation, rep.Applied, strings.Join(msgs, "\n"))
}

func sameLoadBalancer(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
