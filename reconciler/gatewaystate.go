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
	// address is where it is served (assignAddresses).
	address gatewayAddress
	// made are the objects it makes: its routes' servers and backends through it, and
	// its listeners' certificates where they are presented.
	made objectSet
}

// gatewayPort is a port at a Gateway's listen address, "" for the proxy's own.
type gatewayPort struct {
	addr string
	port gatewayv1.PortNumber
}

// planGateway checks a Gateway, at the address assignAddresses gave it, and its
// listeners. Gateways at one address (the proxy's own, without a pool) share its ports
// (see listenerConflicts); a Gateway that asks for an address of a kind restyplane does
// not give is refused.
func (gp *gatewayPlan) planGateway(gw *gatewayv1.Gateway, addr gatewayAddress) *gatewayState {
	g := &gatewayState{obj: gw, class: gp.classes[string(gw.Spec.GatewayClassName)], address: addr}
	if why := g.class.refusal; why != "" {
		g.refusal, g.refusalReason = fmt.Sprintf("GatewayClass %s is not accepted: %s", g.class.obj.Name, why), string(gatewayv1.GatewayReasonInvalid)
	} else if addr.unsupported != "" {
		g.refusal, g.refusalReason = addr.unsupported, string(gatewayv1.GatewayReasonUnsupportedAddress)
	}
	for _, spec := range gw.Spec.Listeners {
		g.listeners = append(g.listeners, gp.planListener(g, spec))
	}
	gp.listenerConflicts(g)
	return g
}

// listenerConflicts marks the listeners that cannot be served beside another: of one
// Gateway, two on a port with different protocols (ProtocolConflict) or the same
// hostname (HostnameConflict); of different Gateways at one address, a port the older
// Gateway serves there with the other protocol (ProtocolConflict).
func (gp *gatewayPlan) listenerConflicts(g *gatewayState) {
	byPort := map[gatewayv1.PortNumber][]*listenerState{}
	for _, l := range g.listeners {
		if l.acceptReason == "" {
			byPort[l.spec.Port] = append(byPort[l.spec.Port], l)
		}
	}
	for port, ls := range byPort {
		for _, l := range ls {
			if proto, ok := gp.ports[gatewayPort{g.address.listen, port}]; ok && proto != l.spec.Protocol {
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
				if _, ok := gp.ports[gatewayPort{g.address.listen, port}]; !ok {
					gp.ports[gatewayPort{g.address.listen, port}] = l.spec.Protocol
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
