package reconciler

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// report builds the listener's status but for Programmed, which ListenerReport says it
// may become.
func (l *listenerState) report(gen int64) ListenerReport {
	accepted := condition(gatewayv1.ListenerConditionAccepted, true, gatewayv1.ListenerReasonAccepted, "served", gen)
	if l.acceptReason != "" {
		accepted = condition(gatewayv1.ListenerConditionAccepted, false, l.acceptReason, l.acceptMsg, gen)
	}
	refs := condition(gatewayv1.ListenerConditionResolvedRefs, true, gatewayv1.ListenerReasonResolvedRefs, "every reference is resolved", gen)
	if l.refsReason != "" {
		refs = condition(gatewayv1.ListenerConditionResolvedRefs, false, l.refsReason, l.refsMsg, gen)
	}
	conflicted := condition(gatewayv1.ListenerConditionConflicted, false, gatewayv1.ListenerReasonNoConflicts, "no conflict", gen)
	if l.conflictReason != "" {
		conflicted = condition(gatewayv1.ListenerConditionConflicted, true, l.conflictReason, l.conflictMsg, gen)
	}
	kinds := l.kinds
	if kinds == nil {
		kinds = []gatewayv1.RouteGroupKind{}
	}
	r := ListenerReport{Status: gatewayv1.ListenerStatus{Name: l.spec.Name, SupportedKinds: kinds, AttachedRoutes: l.attached,
		Conditions: []metav1.Condition{accepted, refs, conflicted}}, Programmable: l.serves(), Objects: l.made.sorted()}
	if !r.Programmable {
		for _, c := range []metav1.Condition{accepted, refs, conflicted} {
			if (c.Type == string(gatewayv1.ListenerConditionConflicted)) == (c.Status == metav1.ConditionTrue) {
				r.ProgramMsg = c.Type + " " + c.Reason + ": " + c.Message
				break
			}
		}
		if r.ProgramMsg == "" {
			r.ProgramMsg = l.gw.refusal
		}
		if r.ProgramMsg == "" {
			r.ProgramMsg = l.gw.address.reason + ": " + l.gw.address.msg
		}
	}
	return r
}

// joinBounded joins messages into a condition's message.
func joinBounded(msgs []string) string {
	return truncateCondition(strings.Join(msgs, "; "))
}
