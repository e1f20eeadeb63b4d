package reconciler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// generations are the routes' generations by "Kind namespace/name", for messages.
func (r *GatewayReport) generations() map[string]int64 {
	if r == nil {
		return nil
	}
	out := make(map[string]int64, len(r.Routes))
	for k, rr := range r.Routes {
		out[k] = rr.Meta.Generation
	}
	return out
}

// routeReport builds a route's status per parent and counts its attachments.
func (gp *gatewayPlan) routeReport(rp *routePlan) *RouteReport {
	r := &RouteReport{Kind: rp.kind, Route: rp.obj, Meta: rp.meta, Applied: rp.applied, Problems: rp.problems, Notes: rp.notes,
		Objects: rp.made.sorted()}
	gen := rp.meta.Generation
	counted := map[*listenerState]bool{}
	for _, ps := range rp.parents {
		accepted := condition(gatewayv1.RouteConditionAccepted, true, gatewayv1.RouteReasonAccepted, "attached, and served where its listeners are", gen)
		switch {
		case ps.acceptReason != "":
			accepted = condition(gatewayv1.RouteConditionAccepted, false, ps.acceptReason, ps.acceptMsg, gen)
		case rp.refusal != "":
			accepted = condition(gatewayv1.RouteConditionAccepted, false, rp.refusalReason(), rp.refusal, gen)
		case !rp.accepted():
			accepted = condition(gatewayv1.RouteConditionAccepted, false, gatewayv1.RouteReasonUnsupportedValue, joinBounded(rp.invalid), gen)
		default:
			for _, l := range ps.listeners {
				if !counted[l] {
					counted[l] = true
					l.attached++
				}
			}
		}
		refs := condition(gatewayv1.RouteConditionResolvedRefs, true, gatewayv1.RouteReasonResolvedRefs, "every reference is resolved", gen)
		if rp.refsReason != "" {
			refs = condition(gatewayv1.RouteConditionResolvedRefs, false, rp.refsReason, rp.refsMsg, gen)
		}
		conds := []metav1.Condition{accepted, refs}
		if len(rp.invalid) > 0 && rp.accepted() && ps.acceptReason == "" {
			conds = append(conds, condition(gatewayv1.RouteConditionPartiallyInvalid, true, gatewayv1.RouteReasonUnsupportedValue, joinBounded(rp.invalid), gen))
		}
		r.Parents = append(r.Parents, gatewayv1.RouteParentStatus{ParentRef: ps.ref,
			ControllerName: gatewayv1.GatewayController(gp.snap.Controller), Conditions: conds})
	}
	return r
}

// refusalReason is the Accepted condition's reason for a route refused whole.
func (rp *routePlan) refusalReason() string {
	for _, p := range rp.problems {
		if p.Reason == ReasonHostClaimed || p.Reason == ReasonLimitExceeded {
			return p.Reason
		}
	}
	return ReasonConflict
}
