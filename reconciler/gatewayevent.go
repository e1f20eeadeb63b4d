package reconciler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// forget drops what was said and written to objects the report no longer holds.
func (p *gatewayReporter) forget(rep *GatewayReport) {
	keep := map[string]bool{}
	for _, c := range rep.Classes {
		keep["GatewayClass "+c.Class.Name+" "+string(c.Class.UID)] = true
	}
	for _, g := range rep.Gateways {
		keep["Gateway "+g.Gateway.Namespace+"/"+g.Gateway.Name+" "+string(g.Gateway.UID)] = true
	}
	for k, r := range rep.Routes {
		keep[k] = true
		keep[r.objectKey()] = true
	}
	for _, r := range rep.Policies {
		keep["BackendTLSPolicy "+r.Policy.Namespace+"/"+r.Policy.Name+" "+string(r.Policy.UID)] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.wrote {
		if !keep[k] {
			delete(p.wrote, k)
		}
	}
	for k := range p.versions {
		if !keep[k] {
			delete(p.versions, k)
		}
	}
	for k := range p.said {
		if !keep[k] {
			delete(p.said, k)
		}
	}
}

// verdict is what a route's Events said of it: whether it was applied, and its problems
// and notes as "reason: message" (saidKey).
type verdict struct {
	applied bool
	said    map[string]bool
}

// events posts a route's Events when what they say changed: Applied when it becomes
// applied (at first, or again after it was not), and each problem and note that was not
// said before, by this reporter or, as recalled from the cluster's Events, one before it.
// A route whose status was already the report's (changed false: setRoute wrote nothing)
// when the reporter first sees it, and of which no Event is recalled, was told by a
// reporter before this one whose Events expired, and gets none: a restart says nothing of
// a thousand routes that did not change. An edit of a route that leaves its verdict as it
// was gets none either; its status says which generation is served.
func (p *gatewayReporter) events(key string, r *RouteReport, rev int64, changed bool) {
	now := verdict{applied: r.Applied, said: telling(r.Meta.UID, r.Meta.Generation, r.Applied, r.Problems, r.Notes).said}
	p.mu.Lock()
	before, seen := p.said[key]
	p.said[key] = now
	p.mu.Unlock()
	if !seen && !changed {
		return
	}
	ref := &corev1.ObjectReference{Kind: r.Kind, APIVersion: gatewayv1.GroupVersion.String(),
		Namespace: r.Meta.Namespace, Name: r.Meta.Name, UID: r.Meta.UID}
	gen := r.Meta.Generation
	if r.Applied && !before.applied {
		p.out.post(ref, gen, corev1.EventTypeNormal, ReasonApplied, fmt.Sprintf("applied at revision %d", rev))
	}
	for _, pb := range r.Problems {
		if msg := eventMessage(pb.Message); !before.said[saidKey(pb.Reason, msg)] {
			p.out.post(ref, gen, corev1.EventTypeWarning, pb.Reason, msg)
		}
	}
	for _, n := range r.Notes {
		if msg := eventMessage(n.Message); !before.said[saidKey(n.Reason, msg)] {
			p.out.post(ref, gen, corev1.EventTypeNormal, n.Reason, msg)
		}
	}
}
