package reconciler

import (
	"fmt"
	"net/netip"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayAddress is where one Gateway is served, or why it is not.
type gatewayAddress struct {
	// listen is the address its servers listen on (api.Server.Address): "" for the
	// proxy's own, which every Gateway shares without a pool.
	listen string
	// status is what its status.addresses says, "" for nothing.
	status string
	// reason and msg say why it has no address (Programmed false, AddressNotUsable or
	// AddressNotAssigned); unsupported why an address it asks for is of a kind restyplane
	// does not give (Accepted false, UnsupportedAddress).
	reason, msg, unsupported string
}

// assignAddresses gives each Gateway, gws oldest first, its address. Without a pool
// (--gateway-addresses) every Gateway is served at the proxy's own address and may ask
// only for --gateway-address. With one, each Gateway gets an address of its own, in
// this order, oldest Gateway first: the IPAddress its spec.addresses asks for (when the
// pool holds it: GatewayStaticAddresses), else the one its status.addresses says (so that
// an address never moves while its Gateway lives, across restarts too), else the first
// free one from where its name hashes to in the pool (GatewayAddressEmpty). An address
// the pool cannot give leaves that Gateway unserved, and only it.
func (gp *gatewayPlan) assignAddresses(gws []*gatewayv1.Gateway) map[*gatewayv1.Gateway]gatewayAddress {
	out := make(map[*gatewayv1.Gateway]gatewayAddress, len(gws))
	pool := gp.snap.Pool
	if pool == nil {
		for _, gw := range gws {
			out[gw] = gp.sharedAddress(gw)
		}
		return out
	}
	held := map[netip.Addr]string{}
	var later []*gatewayv1.Gateway
	for _, gw := range gws {
		key := gw.Namespace + "/" + gw.Name
		a, want := askedAddress(gw, pool)
		switch {
		case a.unsupported != "" || a.reason != "":
			out[gw] = a
		case want.IsValid() && held[want] != "":
			out[gw] = gatewayAddress{reason: string(gatewayv1.GatewayReasonAddressNotUsable),
				msg: fmt.Sprintf("address %s is in use by older Gateway %s", want, held[want])}
		case want.IsValid():
			held[want] = key
			out[gw] = gatewayAddress{listen: want.String(), status: want.String()}
		default:
			if kept := statusAddress(gw, pool); kept.IsValid() && held[kept] == "" {
				held[kept] = key
				out[gw] = gatewayAddress{listen: kept.String(), status: kept.String()}
				continue
			}
			later = append(later, gw)
		}
	}
	for _, gw := range later {
		key := gw.Namespace + "/" + gw.Name
		a, ok := pool.pick(key, func(a netip.Addr) bool { return held[a] != "" })
		if !ok {
			out[gw] = gatewayAddress{reason: string(gatewayv1.GatewayReasonAddressNotAssigned),
				msg: fmt.Sprintf("every address of the pool (%s, --gateway-addresses) is given to another Gateway", pool)}
			continue
		}
		held[a] = key
		out[gw] = gatewayAddress{listen: a.String(), status: a.String()}
	}
	return out
}

// sharedAddress is a Gateway's address without a pool: the proxy's, the only one it may
// ask for.
func (gp *gatewayPlan) sharedAddress(gw *gatewayv1.Gateway) gatewayAddress {
	a := gatewayAddress{status: gp.address}
	for _, s := range gw.Spec.Addresses {
		t := addressType(s.Type)
		if s.Value == "" || (s.Value == gp.address && (t == gatewayv1.IPAddressType || t == gatewayv1.HostnameAddressType)) {
			continue
		}
		a.unsupported = fmt.Sprintf("address %s %q is not the proxy's: restyplane serves its Gateways at %q (--gateway-address; --gateway-addresses gives each an address of its own)", t, s.Value, gp.address)
		break
	}
	return a
}

// askedAddress reads a Gateway's spec.addresses: the IP address it asks for, if any, or
// why none of them can be given. An IPAddress without a value asks for any address.
func askedAddress(gw *gatewayv1.Gateway, pool *AddressPool) (gatewayAddress, netip.Addr) {
	var want netip.Addr
	for _, s := range gw.Spec.Addresses {
		if t := addressType(s.Type); t != gatewayv1.IPAddressType {
			return gatewayAddress{unsupported: fmt.Sprintf("address type %s is not served: restyplane gives each Gateway an IPAddress of its pool", t)}, netip.Addr{}
		}
	}
	for _, s := range gw.Spec.Addresses {
		if s.Value == "" {
			continue
		}
		a, err := netip.ParseAddr(s.Value)
		if err != nil {
			return gatewayAddress{reason: string(gatewayv1.GatewayReasonAddressNotUsable), msg: fmt.Sprintf("%q is not an IP address", s.Value)}, netip.Addr{}
		}
		if why := pool.usable(a); why != "" {
			return gatewayAddress{reason: string(gatewayv1.GatewayReasonAddressNotUsable), msg: why}, netip.Addr{}
		}
		if want.IsValid() && want != a {
			return gatewayAddress{reason: string(gatewayv1.GatewayReasonAddressNotAssigned),
				msg: fmt.Sprintf("a Gateway is served at one address; it asks for %s and %s", want, a)}, netip.Addr{}
		}
		want = a
	}
	return gatewayAddress{}, want
}

// statusAddress is the address of the pool a Gateway's status says it has, if any.
func statusAddress(gw *gatewayv1.Gateway, pool *AddressPool) netip.Addr {
	for _, s := range gw.Status.Addresses {
		if addressType(s.Type) != gatewayv1.IPAddressType {
			continue
		}
		if a, err := netip.ParseAddr(s.Value); err == nil && pool.usable(a) == "" {
			return a
		}
	}
	return netip.Addr{}
}

// addressType is an address's type, IPAddress when it names none.
func addressType(t *gatewayv1.AddressType) gatewayv1.AddressType {
	if t == nil {
		return gatewayv1.IPAddressType
	}
	return *t
}
