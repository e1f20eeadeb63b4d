package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
)

// reporter tells Ingresses what a sync did with them: Events, and status.loadBalancer. It
// works off its own queue so that a sync never waits on the API server for thousands of
// status writes, and it says a thing to an Ingress only once per generation.
type reporter struct {
	client  *clients
	address string
	log     *slog.Logger
	out     *eventWriter
	queue   workqueue.TypedInterface[string]

	mu      sync.Mutex
	pending map[string]pendingReport // by Ingress key
	last    map[string]told          // what was said to each Ingress, by this reporter or recalled
}

type pendingReport struct {
	rep *Report
	rev int64
}

// newReporter returns a reporter that posts to out and starts from what was recalled.
func newReporter(client *clients, address string, log *slog.Logger, out *eventWriter, recalled map[types.UID]recalled) *reporter {
	last := map[string]told{}
	for _, r := range recalled {
		if r.kind == "Ingress" {
			last[r.namespace+"/"+r.name] = r.told
		}
	}
	return &reporter{client: client, address: address, log: log, out: out,
		queue: workqueue.NewTyped[string](), pending: map[string]pendingReport{}, last: last}
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

func (p *reporter) stop() { p.queue.ShutDown() }

// tell posts the report's Events, but not what was already said of the same generation of
// the Ingress, and brings its status to the address if it is applied.
func (p *reporter) tell(ctx context.Context, key string, pr pendingReport) {
	rep, ing := pr.rep, pr.rep.Ingress
	now := telling(ing.UID, ing.Generation, rep.Applied, rep.Problems, rep.Notes)
	p.mu.Lock()
	applied, said := news(p.last[key], now)
	p.last[key] = now
	p.mu.Unlock()
	ref := &corev1.ObjectReference{Kind: "Ingress", APIVersion: "networking.k8s.io/v1",
		Namespace: ing.Namespace, Name: ing.Name, UID: ing.UID, ResourceVersion: ing.ResourceVersion}
	if applied {
		p.out.post(ref, ing.Generation, corev1.EventTypeNormal, ReasonApplied, fmt.Sprintf("applied at revision %d", pr.rev))
	}
	for _, pb := range rep.Problems {
		if msg := eventMessage(pb.Message); !said[saidKey(pb.Reason, msg)] {
			p.out.post(ref, ing.Generation, corev1.EventTypeWarning, pb.Reason, msg)
		}
	}
	for _, n := range rep.Notes {
		if msg := eventMessage(n.Message); !said[saidKey(n.Reason, msg)] {
			p.out.post(ref, ing.Generation, corev1.EventTypeNormal, n.Reason, msg)
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

func sameLoadBalancer(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
