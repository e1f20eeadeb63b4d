package reconciler

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// GatewayReport is what a sync tells the Gateway API objects of restyplane's classes: the
// status each is to have, and the Events of each route. Programmed, which waits for the
// proxy to serve the sync's revision, is decided when the status is written.
type GatewayReport struct {
	Controller string
	Classes    []ClassReport
	Gateways   []GatewayStatusReport
	// Routes are keyed "Kind namespace/name".
	Routes map[string]*RouteReport
	// Policies are the BackendTLSPolicies' statuses.
	Policies []PolicyReport
}

// ClassReport is the status of one GatewayClass.
type ClassReport struct {
	Class      *gatewayv1.GatewayClass
	Conditions []metav1.Condition
	Features   []gatewayv1.SupportedFeature
}

// GatewayStatusReport is the status of one Gateway. Programmable says whether it is
// programmed once the proxy serves the sync's revision (and ProgramMsg why not);
// each listener's in Listeners likewise.
type GatewayStatusReport struct {
	Gateway *gatewayv1.Gateway
	// Config changes when what the Gateway serves does: its generation, its listeners'
	// certificates (listenerConfig), a route attached to it, its generation or what its
	// references resolve to (routeConfig), or a BackendTLSPolicy on a Service its routes
	// reach (tlsPolicyConfigs); not when endpoints alone do. Programmed waits for the
	// proxy to serve the revision of the sync that changed it, not of every sync.
	Config       string
	Accepted     metav1.Condition
	Programmable bool
	ProgramMsg   string
	// ProgramReason is Programmed's reason when it is not Programmable, "" for Invalid.
	ProgramReason string
	// Address is the Gateway's status.addresses, "" for none.
	Address   string
	Listeners []ListenerReport
	// Objects are the objects the Gateway makes: its routes' servers and backends
	// through it, its listeners' certificates. Held, when not "", says which of them
	// rollbacks hold back (heldGatewayReport): the Gateway and its listeners are not
	// Programmed then. It is set when an object of the Gateway's own (one that no
	// listener's routes make: a certificate, a catch-all without routes) is held, or
	// when no listener is programmed for the holds; else the listeners' Held say it.
	Objects []api.Ref
	Held    string
}

// ListenerReport is one listener's status but for Programmed.
type ListenerReport struct {
	Status       gatewayv1.ListenerStatus
	Programmable bool
	ProgramMsg   string
	// Objects are the objects its routes make through it, a part of the Gateway's.
	// Held, when not "", says which of them rollbacks hold back (heldGatewayReport):
	// the listener is not Programmed then.
	Objects []api.Ref
	Held    string
}

// RouteReport is what a sync tells one route: its parents' status and its Events.
type RouteReport struct {
	Kind    string
	Route   runtime.Object
	Meta    *metav1.ObjectMeta
	Parents []gatewayv1.RouteParentStatus
	// Applied is whether a location of the route is in the desired state.
	Applied         bool
	Problems, Notes []Problem
	// Objects are the objects its applied locations make: servers, backends, CA bundles.
	Objects []api.Ref
}

// objectKey names the route's object for the reporter's memories: kind, namespace/name
// and UID, so that a route made again under its name starts afresh.
func (r *RouteReport) objectKey() string {
	return r.Kind + " " + r.Meta.Namespace + "/" + r.Meta.Name + " " + string(r.Meta.UID)
}

// report builds the statuses the plan, and the merge it went through, call for.
func (gp *gatewayPlan) report() *GatewayReport {
	if gp == nil {
		return nil
	}
	rep := &GatewayReport{Controller: gp.snap.Controller, Routes: map[string]*RouteReport{}}
	for _, gc := range gp.snap.Classes {
		c := gp.classes[gc.Name]
		rep.Classes = append(rep.Classes, ClassReport{Class: gc, Conditions: c.conditions(), Features: classFeatures(gp.snap)})
	}
	attached := map[*gatewayState][]string{}
	for _, rp := range gp.routes {
		rr := gp.routeReport(rp)
		rep.Routes[rp.key()] = rr
		config := ""
		for _, ps := range rp.parents {
			if rr.Applied && ps.acceptReason == "" {
				if config == "" {
					config = fmt.Sprintf("%s@%d %s", rp.key(), rp.meta.Generation, rp.config())
				}
				attached[ps.gw] = append(attached[ps.gw], config)
			}
		}
	}
	rep.Policies = gp.policyReports()
	policies := gp.tlsPolicyConfigs()
	for _, g := range gp.gatewayList {
		r := g.report()
		r.Objects = g.made.sorted()
		r.Config = fmt.Sprint(g.obj.Generation, g.listenerConfig(), attached[g], policies[g])
		rep.Gateways = append(rep.Gateways, r)
	}
	return rep
}

// report builds a Gateway's status, once its routes are counted.
func (g *gatewayState) report() GatewayStatusReport {
	gen := g.obj.Generation
	r := GatewayStatusReport{Gateway: g.obj, Address: g.address.status}
	valid, invalid := 0, 0
	for _, l := range g.listeners {
		lr := l.report(gen)
		if l.valid() {
			valid++
		} else {
			invalid++
		}
		r.Listeners = append(r.Listeners, lr)
	}
	switch {
	case g.refusal != "":
		r.Accepted = condition(gatewayv1.GatewayConditionAccepted, false, g.refusalReason, g.refusal, gen)
		r.ProgramMsg = g.refusal
	case valid == 0:
		r.Accepted = condition(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonListenersNotValid, "no listener can be served", gen)
		r.ProgramMsg = "no listener can be served"
	case invalid > 0:
		r.Accepted = condition(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonListenersNotValid, "some listeners cannot be served; their conditions say why", gen)
		r.Programmable = true
	default:
		r.Accepted = condition(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonAccepted, "every listener is served", gen)
		r.Programmable = true
	}
	if a := g.address; a.reason != "" && g.refusal == "" {
		r.Programmable, r.ProgramReason, r.ProgramMsg = false, a.reason, a.msg
	}
	return r
}
