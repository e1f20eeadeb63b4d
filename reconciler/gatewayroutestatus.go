package reconciler

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// setRoute brings the parents of a route's status that restyplane's controller owns to
// the report's, and leaves the other controllers' alone. It reports whether the route's
// status was not already the report's (see events).
func (p *gatewayReporter) setRoute(ctx context.Context, controller string, r *RouteReport) bool {
	key := r.objectKey()
	if !p.fresh(key, fmt.Sprint(r.Parents)) {
		return false
	}
	v1 := p.client.gatewayStatus.GatewayV1()
	var wrote bool
	var err error
	switch route := r.Route.(type) {
	case *gatewayv1.HTTPRoute:
		routes := v1.HTTPRoutes(route.Namespace)
		wrote, err = writeStatus(ctx, p, key, route, routes.Get, routes.UpdateStatus,
			func(o *gatewayv1.HTTPRoute) bool { return setParents(&o.Status.Parents, r.Parents, controller) })
	case *gatewayv1.GRPCRoute:
		routes := v1.GRPCRoutes(route.Namespace)
		wrote, err = writeStatus(ctx, p, key, route, routes.Get, routes.UpdateStatus,
			func(o *gatewayv1.GRPCRoute) bool { return setParents(&o.Status.Parents, r.Parents, controller) })
	}
	p.done(key, err, "route", r.Meta.Namespace+"/"+r.Meta.Name)
	return wrote || err != nil
}

// setParents makes want controller's parents in *have, and reports whether that changed
// anything.
func setParents(have *[]gatewayv1.RouteParentStatus, want []gatewayv1.RouteParentStatus, controller string) bool {
	ps, changed := ownParents(*have, want, controller)
	if changed {
		*have = ps
	}
	return changed
}

// ownParents returns have with the parents of controller replaced by want (each keeping
// its conditions' transition times), and whether that changes anything.
func ownParents(have, want []gatewayv1.RouteParentStatus, controller string) ([]gatewayv1.RouteParentStatus, bool) {
	return ownStatuses(have, want, controller, math.MaxInt, func(p *gatewayv1.RouteParentStatus) (string, any, *[]metav1.Condition) {
		return string(p.ControllerName), p.ParentRef, &p.Conditions
	})
}

// ownStatuses returns have with the entries of controller replaced by want, each keeping
// the transition times of its conditions where they did not change, at most max in all,
// and whether that changes anything: the parents of a route's status and the ancestors of
// a policy's, of which every controller writes its own and leaves the others'. of gives
// an entry's controller, reference and conditions.
func ownStatuses[T any](have, want []T, controller string, max int, of func(*T) (string, any, *[]metav1.Condition)) ([]T, bool) {
	var out, mine []T
	for i := range have {
		if c, _, _ := of(&have[i]); c == controller {
			mine = append(mine, have[i])
		} else {
			out = append(out, have[i])
		}
	}
	changed := len(mine) != len(want)
	for i := range want {
		w := want[i]
		_, ref, conds := of(&w)
		var old []metav1.Condition
		for j := range mine {
			if _, r, c := of(&mine[j]); reflect.DeepEqual(r, ref) {
				old = *c
			}
		}
		*conds = keepTransitions(old, *conds)
		if !changed {
			_, r, c := of(&mine[i])
			changed = !reflect.DeepEqual(r, ref) || !sameConditions(*c, *conds)
		}
		if len(out) < max {
			out = append(out, w)
		}
	}
	return out, changed
}

// keepTransitions gives each wanted condition the transition time of have's condition of
// its type when its status is the same, and now when it changed.
func keepTransitions(have, want []metav1.Condition) []metav1.Condition {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	out := make([]metav1.Condition, len(want))
	for i, w := range want {
		w.LastTransitionTime = now
		for _, h := range have {
			if h.Type == w.Type && h.Status == w.Status {
				w.LastTransitionTime = h.LastTransitionTime
			}
		}
		out[i] = w
	}
	return out
}

// sameConditions compares two condition lists, transition times included.
func sameConditions(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Status != b[i].Status || a[i].Reason != b[i].Reason ||
			a[i].Message != b[i].Message || a[i].ObservedGeneration != b[i].ObservedGeneration || !a[i].LastTransitionTime.Equal(&b[i].LastTransitionTime) {
			return false
		}
	}
	return true
}

// sameGatewayStatus compares the parts of a Gateway's status restyplane writes.
func sameGatewayStatus(a, b gatewayv1.GatewayStatus) bool {
	if !reflect.DeepEqual(a.Addresses, b.Addresses) && (len(a.Addresses) > 0 || len(b.Addresses) > 0) {
		return false
	}
	if !sameConditions(a.Conditions, b.Conditions) || len(a.Listeners) != len(b.Listeners) {
		return false
	}
	for i := range a.Listeners {
		x, y := a.Listeners[i], b.Listeners[i]
		if x.Name != y.Name || x.AttachedRoutes != y.AttachedRoutes || !reflect.DeepEqual(x.SupportedKinds, y.SupportedKinds) ||
			!sameConditions(x.Conditions, y.Conditions) {
			return false
		}
	}
	return true
}
