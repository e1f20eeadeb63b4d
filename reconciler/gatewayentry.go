package reconciler

import (
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// routeEntry is one location of a route on one server: the server of a host on the
// proxy's own ports, or on a listener's port of its own.
type routeEntry struct {
	// server keys the server in the merge: the host, or host and port, and the
	// Gateway's own address when it has one (serverKey).
	server string
	host   string
	port   int
	// address is the Gateway's listen address, "" for the proxy's own.
	address string
	// tls is the HTTPS listener the server presents the certificate of, or nil.
	tls *listenerState
	// gw is the Gateway the route reaches the server through, and namespace its
	// namespace, whose hostname claims the route's hosts go under.
	gw        *gatewayState
	namespace string
	// listeners are gw's listeners the route reaches the server through (with tls, or
	// without): more than one when their hostnames overlap. What the location makes is
	// theirs too (madeBy), so that a hold on it is told on them alone.
	listeners []*listenerState
	loc       api.Location
}

// viaKey keys the entries of one server, with TLS or without, in entries.
func (e routeEntry) viaKey() string {
	if e.tls != nil {
		return e.server + " tls"
	}
	return e.server
}

// entries lists the route's locations on each server it reaches: through each listener
// it is attached to that serves, on each host the route and listener share. A plain-HTTP
// listener on a port of its own makes servers of their own; an HTTPS listener serves
// the host's server of the proxy's own plain-HTTP port, with its certificate.
func (rp *routePlan) entries() []routeEntry {
	var out []routeEntry
	// via are the listeners of the first Gateway to reach each server (viaKey); a
	// server reached again through another Gateway stays the first's, as its entries do.
	via := map[string][]*listenerState{}
	for _, ps := range rp.parents {
		if ps.acceptReason != "" {
			continue
		}
		for _, l := range ps.listeners {
			if !l.serves() {
				continue
			}
			for _, h := range routeHosts(l.spec.Hostname, rp.hostnames) {
				if l.isolatedFrom(h) {
					continue
				}
				e := routeEntry{host: h, gw: ps.gw, namespace: ps.gw.obj.Namespace, address: ps.gw.address.listen}
				if l.https {
					e.tls = l
				} else {
					e.port = l.port
				}
				e.server = serverKey(h, e.address, e.port)
				// A host reached through an HTTP and an HTTPS listener is one server, which
				// the HTTPS listener's entries give its certificate.
				k := e.viaKey()
				if ls, seen := via[k]; seen {
					if ls[0].gw == ps.gw {
						via[k] = append(ls, l)
					}
					continue
				}
				via[k] = []*listenerState{l}
				for _, loc := range rp.locs {
					e.loc = loc
					out = append(out, e)
				}
			}
		}
	}
	for i := range out {
		out[i].listeners = via[out[i].viaKey()]
	}
	return out
}

// withSchemes limits the route's locations on a server that some route reaches through
// an HTTPS listener (overTLS) to the scheme of its own listener there, when it reaches the
// server through the proxy's plain-HTTP port alone or through HTTPS alone: one server
// holds a host for both, and a route answers for the listeners it is attached to only
// (the spec's redirect to HTTPS on the HTTP listener beside the application on the HTTPS
// one, say). A server no route reaches over HTTPS keeps its locations unconditioned.
func withSchemes(es []routeEntry, overTLS map[string]bool) []routeEntry {
	plain, tls := map[string]bool{}, map[string]bool{}
	for _, e := range es {
		switch {
		case e.tls != nil:
			tls[e.server] = true
		case e.port == 0:
			plain[e.server] = true
		}
	}
	out := make([]routeEntry, len(es))
	for i, e := range es {
		out[i] = e
		scheme := ""
		switch {
		case !overTLS[e.server]:
		case e.tls != nil && !plain[e.server]:
			scheme = api.SchemeHTTPS
		case e.tls == nil && e.port == 0 && !tls[e.server]:
			scheme = api.SchemeHTTP
		}
		if scheme == "" {
			continue
		}
		w := api.RequestMatch{Scheme: scheme}
		if e.loc.When != nil {
			w = *e.loc.When
			w.Scheme = scheme
		}
		out[i].loc.When = &w
	}
	return out
}

// serverKey keys the server of a host on a listener's port of its own (0 for the proxy's)
// at a Gateway's address of its own ("" for the proxy's) in the merge: the host alone on
// the proxy's own, as an Ingress's.
func serverKey(host, address string, port int) string {
	k := host
	if port != 0 {
		k += " " + strconv.Itoa(port)
	}
	if address != "" {
		k += " @" + address
	}
	return k
}

// claimants are the route's hostnames for the claim rule, one per Gateway namespace.
func (rp *routePlan) claimants() []hostClaimant {
	byNS := map[string][]string{}
	var order []string
	for _, e := range rp.entries() {
		if _, ok := byNS[e.namespace]; !ok {
			order = append(order, e.namespace)
		}
		byNS[e.namespace] = appendOnce(byNS[e.namespace], e.host)
	}
	var out []hostClaimant
	for _, ns := range order {
		out = append(out, hostClaimant{namespace: ns, hosts: byNS[ns], created: rp.meta.CreationTimestamp.Time, key: rp.key()})
	}
	return out
}

// claimants lists every route's claimants.
func (gp *gatewayPlan) claimants() []hostClaimant {
	if gp == nil {
		return nil
	}
	var out []hostClaimant
	for _, rp := range gp.routes {
		if rp.accepted() {
			out = append(out, rp.claimants()...)
		}
	}
	return out
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
