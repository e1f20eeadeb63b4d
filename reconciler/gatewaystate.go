package reconciler

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayState is what a sync makes of one Gateway of restyplane's classes.
type gatewayState struct {
	obj       *gatewayv1.Gateway
	class     *classState
	listeners []*listenerState
	// refusal says why the Gateway is not accepted at all, with the spec's reason.
	refusal, refusalReason string
}

// planGateway checks a Gateway and its listeners. All of restyplane's Gateways are served
// by the same proxy, at the same addresses: a Gateway that asks for other addresses is
// refused, and listeners of several Gateways share its ports (see listenerConflicts).
func (gp *gatewayPlan) planGateway(gw *gatewayv1.Gateway) *gatewayState {
	g := &gatewayState{obj: gw, class: gp.classes[string(gw.Spec.GatewayClassName)]}
	if why := g.class.refusal; why != "" {
		g.refusal, g.refusalReason = fmt.Sprintf("GatewayClass %s is not accepted: %s", g.class.obj.Name, why), string(gatewayv1.GatewayReasonInvalid)
	}
	for _, a := range gw.Spec.Addresses {
		t := gatewayv1.IPAddressType
		if a.Type != nil {
			t = *a.Type
		}
		if a.Value == "" || (a.Value == gp.address && (t == gatewayv1.IPAddressType || t == gatewayv1.HostnameAddressType)) {
			continue
		}
		g.refusal, g.refusalReason = fmt.Sprintf("address %s %q is not the proxy's: restyplane serves its Gateways at %q (--gateway-address)", t, a.Value, gp.address),
			string(gatewayv1.GatewayReasonUnsupportedAddress)
		break
	}
	for _, spec := range gw.Spec.Listeners {
		g.listeners = append(g.listeners, gp.planListener(g, spec))
	}
	gp.listenerConflicts(g)
	return g
}

// listenerConflicts marks the listeners that cannot be served beside another: of one
// Gateway, two on a port with different protocols (ProtocolConflict) or the same
// hostname (HostnameConflict); of different Gateways, served by the one proxy, a port the
// older Gateway serves with the other protocol (ProtocolConflict).
func (gp *gatewayPlan) listenerConflicts(g *gatewayState) {
	byPort := map[gatewayv1.PortNumber][]*listenerState{}
	for _, l := range g.listeners {
		if l.acceptReason == "" {
			byPort[l.spec.Port] = append(byPort[l.spec.Port], l)
		}
	}
	for port, ls := range byPort {
		for _, l := range ls {
			if proto, ok := gp.ports[port]; ok && proto != l.spec.Protocol {
				l.conflictReason, l.conflictMsg = string(gatewayv1.ListenerReasonProtocolConflict),
					fmt.Sprintf("port %d is served as %s for an older Gateway of restyplane's classes", port, proto)
				continue
			}
			for _, o := range ls {
				switch {
				case o == l:
				case o.spec.Protocol != l.spec.Protocol:
					l.conflictReason, l.conflictMsg = string(gatewayv1.ListenerReasonProtocolConflict),
						fmt.Sprintf("listener %s serves port %d as %s", o.spec.Name, port, o.spec.Protocol)
				case hostnameOf(o.spec.Hostname) == hostnameOf(l.spec.Hostname):
					l.conflictReason, l.conflictMsg = string(gatewayv1.ListenerReasonHostnameConflict),
						fmt.Sprintf("listener %s serves port %d for the same hostname %q", o.spec.Name, port, hostnameOf(l.spec.Hostname))
				}
			}
		}
		for _, l := range ls {
			if l.conflictReason == "" {
				if _, ok := gp.ports[port]; !ok {
					gp.ports[port] = l.spec.Protocol
				}
			}
		}
	}
}

// hostnameOf spells an optional hostname, "" for none.
func hostnameOf(h *gatewayv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}
