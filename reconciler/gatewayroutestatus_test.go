package reconciler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestOwnParents: restyplane writes the parents of its controller in a route's status and
// leaves the others' alone: it replaces its own, keeps a condition's transition time
// while its status holds, and drops its parents the route no longer names.
func TestOwnParents(t *testing.T) {
	then := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	ours, theirs := gatewayv1.GatewayController(testGatewayController), gatewayv1.GatewayController("example.com/other")
	parent := func(name string, ctl gatewayv1.GatewayController, status metav1.ConditionStatus) gatewayv1.RouteParentStatus {
		return gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: gatewayv1.ObjectName(name)}, ControllerName: ctl,
			Conditions: []metav1.Condition{{Type: "Accepted", Status: status, Reason: "Accepted", LastTransitionTime: then}}}
	}
	have := []gatewayv1.RouteParentStatus{parent("other-gw", theirs, "True"), parent("gw", ours, "True"), parent("gone", ours, "True")}
	want := []gatewayv1.RouteParentStatus{parent("gw", ours, "True")}
	want[0].Conditions[0].LastTransitionTime = metav1.Time{}
	got, changed := ownParents(have, want, testGatewayController)
	if !changed || len(got) != 2 || got[0].ControllerName != theirs || got[1].ParentRef.Name != "gw" {
		t.Fatalf("ownParents = %+v changed %t; want the other controller's parent and gw, without gone", got, changed)
	}
	if !got[1].Conditions[0].LastTransitionTime.Equal(&then) {
		t.Errorf("transition time = %v, want %v kept: the status did not change", got[1].Conditions[0].LastTransitionTime, then)
	}
	if _, changed := ownParents(got, want, testGatewayController); changed {
		t.Errorf("writing the same parents again changes the status")
	}
	if got, changed := ownParents(got, nil, testGatewayController); !changed || len(got) != 1 || got[0].ControllerName != theirs {
		t.Errorf("a route that left restyplane's Gateways keeps %+v, want only the other controller's parent", got)
	}
}
