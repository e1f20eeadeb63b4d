package reconciler

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
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
		keep[r.Kind+" "+r.Meta.Namespace+"/"+r.Meta.Name+" "+string(r.Meta.UID)] = true
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
	for k := range p.said {
		if !keep[k] {
			delete(p.said, k)
		}
	}
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
