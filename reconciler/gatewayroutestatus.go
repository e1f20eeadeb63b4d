package reconciler

import (
	"context"
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// setRoute brings the parents of a route's status that restyplane's controller owns to
// the report's, and leaves the other controllers' alone.
func (p *gatewayReporter) setRoute(ctx context.Context, controller string, r *RouteReport) {
	key := r.Kind + " " + r.Meta.Namespace + "/" + r.Meta.Name + " " + string(r.Meta.UID)
	if !p.fresh(key, fmt.Sprint(r.Parents)) {
		return
	}
	v1 := p.client.gateway.GatewayV1()
	var err error
	switch route := r.Route.(type) {
	case *gatewayv1.HTTPRoute:
		routes := v1.HTTPRoutes(route.Namespace)
		var cur *gatewayv1.HTTPRoute // read fresh, see setClass
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if cur == nil {
				fresh, err := routes.Get(ctx, route.Name, metav1.GetOptions{})
				if err != nil || fresh.UID != route.UID {
					return err
				}
				cur = fresh
			}
			parents, changed := ownParents(cur.Status.Parents, r.Parents, controller)
			if !changed {
				return nil
			}
			cur.Status.Parents = parents
			_, err := routes.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			cur = nil
			return err
		})
	case *gatewayv1.GRPCRoute:
		routes := v1.GRPCRoutes(route.Namespace)
		var cur *gatewayv1.GRPCRoute // read fresh, see setClass
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if cur == nil {
				fresh, err := routes.Get(ctx, route.Name, metav1.GetOptions{})
				if err != nil || fresh.UID != route.UID {
					return err
				}
				cur = fresh
			}
			parents, changed := ownParents(cur.Status.Parents, r.Parents, controller)
			if !changed {
				return nil
			}
			cur.Status.Parents = parents
			_, err := routes.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			cur = nil
			return err
		})
	}
	p.done(key, err, "route", r.Meta.Namespace+"/"+r.Meta.Name)
}

// ownParents returns have with the parents of controller replaced by want (each keeping
// its conditions' transition times), and whether that changes anything.
func ownParents(have, want []gatewayv1.RouteParentStatus, controller string) ([]gatewayv1.RouteParentStatus, bool) {
	var out, mine []gatewayv1.RouteParentStatus
	for _, h := range have {
		if string(h.ControllerName) == controller {
			mine = append(mine, h)
		} else {
			out = append(out, h)
		}
	}
	changed := len(mine) != len(want)
	for i, w := range want {
		var old []metav1.Condition
		for _, m := range mine {
			if reflect.DeepEqual(m.ParentRef, w.ParentRef) {
				old = m.Conditions
			}
		}
		w.Conditions = keepTransitions(old, w.Conditions)
		if !changed && (!reflect.DeepEqual(mine[i].ParentRef, w.ParentRef) || !sameConditions(mine[i].Conditions, w.Conditions)) {
			changed = true
		}
		out = append(out, w)
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
