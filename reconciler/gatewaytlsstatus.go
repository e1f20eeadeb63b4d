package reconciler

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// maxPolicyAncestors is how many ancestors a policy's status holds (the CRD's bound).
const maxPolicyAncestors = 16

// PolicyReport is the status one BackendTLSPolicy is to have: an ancestor per Gateway of
// restyplane's classes whose attached routes send requests to a Service it names.
type PolicyReport struct {
	Policy    *gatewayv1.BackendTLSPolicy
	Ancestors []gatewayv1.PolicyAncestorStatus
}

// policyReports builds the status of every policy; those of none of restyplane's
// Gateways get no ancestor of its controller.
func (gp *gatewayPlan) policyReports() []PolicyReport {
	if len(gp.tlsPolicyList) == 0 {
		return nil
	}
	through := gp.servicesThrough()
	var out []PolicyReport
	for _, st := range gp.tlsPolicyList {
		gws := st.gatewaysThrough(through)
		r := PolicyReport{Policy: st.obj}
		for _, g := range gp.gatewayList {
			if !gws[g] || len(r.Ancestors) == maxPolicyAncestors {
				continue
			}
			r.Ancestors = append(r.Ancestors, st.ancestor(g, gp.snap.Controller))
		}
		out = append(out, r)
	}
	return out
}

// servicesThrough gives the Gateways that each Service's ("namespace/name") requests come
// through: those of its routes' parents that accept them.
func (gp *gatewayPlan) servicesThrough() map[string]map[*gatewayState]bool {
	through := map[string]map[*gatewayState]bool{}
	for _, rp := range gp.routes {
		for _, ps := range rp.parents {
			if ps.gw == nil || ps.acceptReason != "" {
				continue
			}
			for svc := range rp.services {
				if through[svc] == nil {
					through[svc] = map[*gatewayState]bool{}
				}
				through[svc][ps.gw] = true
			}
		}
	}
	return through
}

// gatewaysThrough gives the Gateways whose requests reach a Service the policy names.
func (st *tlsPolicyState) gatewaysThrough(through map[string]map[*gatewayState]bool) map[*gatewayState]bool {
	gws := map[*gatewayState]bool{}
	for _, t := range policyTargets(st.obj) {
		for g := range through[t.service] {
			gws[g] = true
		}
	}
	return gws
}

// ancestor is the policy's status for one Gateway: Accepted and ResolvedRefs.
func (st *tlsPolicyState) ancestor(g *gatewayState, controller string) gatewayv1.PolicyAncestorStatus {
	gen := st.obj.Generation
	group, kind := gatewayv1.Group(gatewayGroup), gatewayv1.Kind("Gateway")
	ns := gatewayv1.Namespace(g.obj.Namespace)
	accepted := condition(gatewayv1.PolicyConditionAccepted, true, gatewayv1.PolicyReasonAccepted, st.acceptMsg, gen)
	if st.acceptReason != "" {
		accepted = condition(gatewayv1.PolicyConditionAccepted, false, st.acceptReason, st.acceptMsg, gen)
	}
	refs := condition(gatewayv1.BackendTLSPolicyConditionResolvedRefs, true, st.refsReason, "every caCertificateRef resolves", gen)
	if st.refsReason != gatewayv1.BackendTLSPolicyReasonResolvedRefs {
		refs = condition(gatewayv1.BackendTLSPolicyConditionResolvedRefs, false, st.refsReason, st.refsMsg, gen)
	}
	return gatewayv1.PolicyAncestorStatus{
		AncestorRef:    gatewayv1.ParentReference{Group: &group, Kind: &kind, Namespace: &ns, Name: gatewayv1.ObjectName(g.obj.Name)},
		ControllerName: gatewayv1.GatewayController(controller),
		Conditions:     []metav1.Condition{accepted, refs},
	}
}

// setPolicy brings the ancestors of a policy's status that restyplane's controller owns
// to the report's, and leaves the other controllers' alone. A policy that has none of
// restyplane's ancestors and is to have none is not read at all.
func (p *gatewayReporter) setPolicy(ctx context.Context, controller string, r PolicyReport) {
	pol := r.Policy
	if len(r.Ancestors) == 0 && !saidByPolicy(pol.Status.Ancestors, controller) {
		return
	}
	key := "BackendTLSPolicy " + pol.Namespace + "/" + pol.Name + " " + string(pol.UID)
	if !p.fresh(key, fmt.Sprint(r.Ancestors)) {
		return
	}
	policies := p.client.gatewayStatus.GatewayV1().BackendTLSPolicies(pol.Namespace)
	_, err := writeStatus(ctx, p, key, pol, policies.Get, policies.UpdateStatus, func(cur *gatewayv1.BackendTLSPolicy) bool {
		as, changed := ownAncestors(cur.Status.Ancestors, r.Ancestors, controller)
		if changed {
			cur.Status.Ancestors = as
		}
		return changed
	})
	p.done(key, err, "backendtlspolicy", pol.Namespace+"/"+pol.Name)
}

// saidByPolicy reports whether a policy's status has an ancestor of controller.
func saidByPolicy(as []gatewayv1.PolicyAncestorStatus, controller string) bool {
	for _, a := range as {
		if string(a.ControllerName) == controller {
			return true
		}
	}
	return false
}

// ownAncestors returns have with the ancestors of controller replaced by want (each
// keeping its conditions' transition times), at most maxPolicyAncestors in all, and
// whether that changes anything.
func ownAncestors(have, want []gatewayv1.PolicyAncestorStatus, controller string) ([]gatewayv1.PolicyAncestorStatus, bool) {
	return ownStatuses(have, want, controller, maxPolicyAncestors, func(a *gatewayv1.PolicyAncestorStatus) (string, any, *[]metav1.Condition) {
		return string(a.ControllerName), a.AncestorRef, &a.Conditions
	})
}
