package reconciler

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// listenerState is what a sync makes of one listener of a Gateway of restyplane's class.
type listenerState struct {
	gw   *gatewayState
	spec gatewayv1.Listener
	// https is whether the listener terminates TLS (protocol HTTPS); else plain HTTP.
	https bool
	// port is the Server.Port (or ServerTLS.Port) of the servers its routes make: 0 for
	// the proxy's own port of the protocol.
	port int
	// cert is the certificate an HTTPS listener presents, and certObj its object.
	cert    string
	certObj *api.Certificate
	// kinds are the route kinds that may attach, as status.supportedKinds lists them.
	kinds []gatewayv1.RouteGroupKind
	// Each of these is "" when the condition is good, else the spec's reason with msg.
	acceptReason, acceptMsg     string
	refsReason, refsMsg         string
	conflictReason, conflictMsg string
	// attached counts the routes attached to the listener (status.attachedRoutes).
	attached int32
	// made are the objects its routes' locations through it make (madeBy), a part of
	// its Gateway's.
	made objectSet
}

// serves reports whether routes attached to the listener are served through it: it is
// valid and its Gateway has an address.
func (l *listenerState) serves() bool {
	return l.valid() && l.gw.address.reason == ""
}

// valid reports whether the listener can be served: it is accepted, without conflict,
// with its certificate and at least one route kind.
func (l *listenerState) valid() bool {
	return l.gw.refusal == "" && l.acceptReason == "" && l.conflictReason == "" && len(l.kinds) > 0 &&
		l.refsReason != string(gatewayv1.ListenerReasonInvalidCertificateRef) && l.refsReason != string(gatewayv1.ListenerReasonRefNotPermitted)
}

// planListener checks one listener on its own: protocol, port, hostname, route kinds and,
// for HTTPS, its certificate.
func (gp *gatewayPlan) planListener(g *gatewayState, spec gatewayv1.Listener) *listenerState {
	l := &listenerState{gw: g, spec: spec, port: int(spec.Port)}
	snap := gp.snap
	switch spec.Protocol {
	case gatewayv1.HTTPProtocolType:
		if spec.Port == snap.HTTPSPort && snap.HTTPSPort != 0 {
			l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonPortUnavailable),
				fmt.Sprintf("port %d is the proxy's HTTPS port (--tls-listen): it cannot serve plain HTTP too", spec.Port)
		} else if spec.Port == snap.HTTPPort {
			l.port = 0
		}
	case gatewayv1.HTTPSProtocolType:
		l.https = true
		if spec.Port == snap.HTTPPort && snap.HTTPPort != 0 {
			l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonPortUnavailable),
				fmt.Sprintf("port %d is the proxy's plain-HTTP port (--proxy-listen): it cannot serve HTTPS too", spec.Port)
		} else if spec.Port == snap.HTTPSPort {
			l.port = 0
		}
	default:
		l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonUnsupportedProtocol),
			fmt.Sprintf("protocol %s is not served; restyplane serves HTTP and HTTPS listeners", spec.Protocol)
		return l
	}
	if srv := gp.restPorts[restPort{int(spec.Port), l.https}]; srv != "" && l.acceptReason == "" && l.port != 0 && g.address.listen == "" {
		other := "HTTPS"
		if l.https {
			other = "plain HTTP"
		}
		l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonPortUnavailable),
			fmt.Sprintf("port %d is REST server %q's %s port", spec.Port, srv, other)
	}
	if h := spec.Hostname; h != nil {
		if err := api.ValidHostname("hostname", string(*h)); err != nil || *h == api.CatchAllHostname {
			l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonUnsupportedValue), fmt.Sprintf("hostname %q is not a DNS name nginx serves", *h)
		}
	}
	gp.listenerKinds(l)
	if l.https {
		gp.listenerCertificate(l)
	}
	return l
}

// listenerKinds sets the kinds that may attach: those allowedRoutes lists that restyplane
// serves, or HTTPRoute and GRPCRoute when it lists none. A kind it does not serve makes
// ResolvedRefs false with InvalidRouteKinds; the others still attach.
func (gp *gatewayPlan) listenerKinds(l *listenerState) {
	served := []gatewayv1.Kind{"HTTPRoute"}
	if gp.snap.GRPCServed {
		served = append(served, "GRPCRoute")
	}
	group := gatewayv1.Group(gatewayv1.GroupName)
	var asked []gatewayv1.RouteGroupKind
	if ar := l.spec.AllowedRoutes; ar != nil {
		asked = ar.Kinds
	}
	if len(asked) == 0 {
		for _, k := range served {
			l.kinds = append(l.kinds, gatewayv1.RouteGroupKind{Group: &group, Kind: k})
		}
		return
	}
	for _, k := range asked {
		ok := k.Group == nil || *k.Group == group
		if ok {
			ok = false
			for _, s := range served {
				ok = ok || k.Kind == s
			}
		}
		if !ok {
			g := ""
			if k.Group != nil {
				g = string(*k.Group)
			}
			l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonInvalidRouteKinds),
				fmt.Sprintf("route kind %s of group %q is not served; restyplane serves %v", k.Kind, g, served)
			continue
		}
		l.kinds = append(l.kinds, gatewayv1.RouteGroupKind{Group: &group, Kind: k.Kind})
	}
}

// allows reports whether the listener lets routes of kind attach.
func (l *listenerState) allows(kind string) bool {
	for _, k := range l.kinds {
		if string(k.Kind) == kind {
			return true
		}
	}
	return false
}
