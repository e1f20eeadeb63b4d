package reconciler

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// routePlan is one HTTPRoute or GRPCRoute translated on its own, before it meets the
// Ingresses, the other routes and the REST objects: its locations (in the order of its
// rules and matches), the backends they use, and what its status will say.
type routePlan struct {
	// kind is api.ObjectHTTPRoute or api.ObjectGRPCRoute.
	kind       string
	meta       *metav1.ObjectMeta
	obj        runtime.Object
	hostnames  []gatewayv1.Hostname
	parentRefs []gatewayv1.ParentReference
	// parents has one entry per parentRef naming a Gateway of restyplane's classes.
	parents  []*parentState
	locs     []api.Location
	backends map[string]*api.Backend
	// cas are the CA bundles its backends' BackendTLSPolicies verify against.
	cas map[string]*api.CACertificate
	// services are the Services ("namespace/name") its backendRefs resolve to.
	services map[string]bool
	// refPorts are the endpoints of the Service ports its backendRefs resolve to, which
	// a held rule's backend follows (followSplit).
	refPorts map[refPort][]api.Endpoint
	// refsReason and refsMsg are the ResolvedRefs condition's when a reference is not
	// resolved ("" when all are).
	refsReason, refsMsg string
	// invalid lists the rules left out, each with why; when none is left, the route is
	// not accepted (UnsupportedValue).
	invalid []string
	rules   int
	// ruleRefs name the rules in messages (ruleRef), by index.
	ruleRefs []string
	// refusal says why the route is not applied at all (a hostname another namespace
	// holds, a name the REST API has), set as it meets the others.
	refusal string
	// applied is whether a location of the route is in the desired state.
	applied bool
	// made are the objects its applied locations make (madeBy): the servers they are
	// in, the backends and CA bundles they use.
	made objectSet
	// problems are said as Warning Events, notes as Normal ones.
	problems, notes []Problem
}

// parentState is a route's attachment to one Gateway its parentRefs name.
type parentState struct {
	ref gatewayv1.ParentReference
	gw  *gatewayState
	// listeners are those the route attached to, with the hosts it serves through each.
	listeners []*listenerState
	// acceptReason is "" when the route is attached to a listener, else the spec's reason.
	acceptReason, acceptMsg string
}

// key names the route in reports and messages: "HTTPRoute namespace/name".
func (rp *routePlan) key() string { return rp.kind + " " + rp.meta.Namespace + "/" + rp.meta.Name }

// source is the route as the owner of the objects it makes.
func (rp *routePlan) source() api.Source {
	return api.Source{Kind: api.SourceKubernetes, Object: rp.kind, Namespace: rp.meta.Namespace, Name: rp.meta.Name, UID: string(rp.meta.UID)}
}

func (rp *routePlan) warn(reason, format string, args ...any) {
	rp.problems = append(rp.problems, Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// unresolved records a reference that is not resolved; the first reason stays the
// condition's, and every one is told.
func (rp *routePlan) unresolved(reason gatewayv1.RouteConditionReason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if rp.refsReason == "" {
		rp.refsReason, rp.refsMsg = string(reason), msg
	} else if len(rp.refsMsg) < 2000 {
		rp.refsMsg += "; " + msg
	}
	rp.warn(ReasonDegraded, "%s", msg)
}

// rule names rule i in messages: rules[i], and its name when it has one.
func (rp *routePlan) rule(i int) string {
	if i < len(rp.ruleRefs) {
		return rp.ruleRefs[i]
	}
	return ruleRef(i, nil)
}

// ruleInvalid leaves rule i out, saying why. Each entry of invalid starts with "Dropped
// Rule", which the spec asks of the PartiallyInvalid condition's message.
func (rp *routePlan) ruleInvalid(i int, err error) {
	rp.invalid = append(rp.invalid, fmt.Sprintf("Dropped Rule %s: %v", rp.rule(i), err))
	rp.warn(ReasonSkipped, "%s is not applied: %v", rp.rule(i), err)
}

// accepted reports whether the route is attached to some listener and applied, as its
// Accepted condition says.
func (rp *routePlan) accepted() bool {
	return rp.refusal == "" && (rp.rules == 0 || len(rp.invalid) < rp.rules)
}
