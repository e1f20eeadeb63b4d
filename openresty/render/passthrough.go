package render

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// passthroughView is one stream route of TLS passthrough: the hostnames whose connections
// go to a backend, the unix socket of the stream server that takes them from the router
// (with the client's address in the PROXY protocol header, which it drops), and the
// backend's endpoints as the upstream block's servers.
type passthroughView struct {
	Block     string
	Socket    string
	Hostnames []string
	Peers     []streamPeer
}

// streamPeer is one server line of a stream upstream: Addr is host:port, IPv6 in brackets.
type streamPeer struct {
	Addr   string
	Weight int
}

// passthroughBlock prefixes the stream upstream blocks; the index keeps names unique
// whatever the backend's name.
const passthroughBlock = "restyplane_passthrough_"

// passthroughs settles the stream routes of the servers that pass TLS through, one per
// backend, in the backends' order. Hostnames are taken once: api refuses two servers
// that pass one hostname differently.
func passthroughs(w Layout, servers []api.Server, backends []api.Backend) ([]passthroughView, error) {
	hosts := map[string][]string{}
	first := map[string]string{} // backend -> the first server that passes to it
	for _, s := range servers {
		if p := s.Passthrough; p != nil {
			if first[p.Backend] == "" {
				first[p.Backend] = s.Name
			}
			for _, h := range s.Hostnames {
				if !contains(hosts[p.Backend], h) {
					hosts[p.Backend] = append(hosts[p.Backend], h)
				}
			}
		}
	}
	if len(hosts) == 0 {
		return nil, nil
	}
	byName := map[string]*api.Backend{}
	for i := range backends {
		byName[backends[i].Name] = &backends[i]
	}
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []passthroughView
	for i, n := range names {
		b := byName[n]
		if b == nil {
			return nil, &ServerError{first[n], fmt.Errorf("passthrough backend %q is not in the config", n)}
		}
		pv := passthroughView{Block: passthroughBlock + strconv.Itoa(i), Socket: "unix:" + w.PassthroughSocket(i), Hostnames: hosts[n]}
		sort.Strings(pv.Hostnames)
		for _, e := range b.Endpoints {
			// A name would be resolved once, when nginx loads the conf, and one that does
			// not resolve would fail the whole conf: passthrough takes addresses only.
			a, err := netip.ParseAddr(e.Address)
			if err != nil || a.Zone() != "" {
				return nil, &ServerError{first[n], fmt.Errorf("passthrough backend %q: endpoint %q is not an IP address", n, e.Address)}
			}
			addr := a.String()
			if a.Is6() {
				addr = "[" + addr + "]"
			}
			weight := e.Weight
			if weight < 1 {
				weight = 1
			}
			pv.Peers = append(pv.Peers, streamPeer{Addr: addr + ":" + strconv.Itoa(e.Port), Weight: weight})
		}
		out = append(out, pv)
	}
	return out, nil
}

// passthrough sets the stream routes and moves the HTTPS listener behind the router when
// a server passes TLS through; otherwise the HTTPS servers listen on TLSListen.
func (v *confView) passthrough(opts Options, servers []api.Server, cfg api.Config) error {
	v.HTTPSListen = opts.TLSListen
	w := opts.Workers()
	routes, err := passthroughs(w, servers, cfg.Backends)
	if err != nil || len(routes) == 0 {
		return err
	}
	if v.RealIP != nil {
		return &ServerError{routes[0].firstServer(servers), fmt.Errorf("passthrough is not available with the realIPFrom setting")}
	}
	v.Passthrough = routes
	v.HTTPSSocket = "unix:" + w.HTTPSSocket()
	v.HTTPSListen = v.HTTPSSocket
	v.LoadStream = opts.StreamModule
	// Names that no route passes go to the HTTPS listener, which must then exist.
	v.TLS = true
	v.portBehindRouter()
	return nil
}

// portBehindRouter makes X-Forwarded-Port name the port the client connected to on
// requests that came through a stream router (passthrough's or h2c's): the unix socket
// they arrive on has no port, and $server_port is empty there. The map in the template
// gives $rp_server_port from the PROXY protocol header.
func (v *confView) portBehindRouter() {
	swap := func(hs []defaultHeader) []defaultHeader {
		out := make([]defaultHeader, len(hs)) // the slices may be the shared defaults
		for i, h := range hs {
			// Settings' proxySetHeaders (Quote) name only api's variables, as written.
			if h.Value == "$server_port" && !h.Quote {
				h.Value = "$rp_server_port"
			}
			out[i] = h
		}
		return out
	}
	for i := range v.Servers {
		sv := &v.Servers[i]
		for j := range sv.Locations {
			sv.Locations[j].DefaultHeaders = swap(sv.Locations[j].DefaultHeaders)
		}
		for j := range sv.ErrorLocations {
			sv.ErrorLocations[j].Up.DefaultHeaders = swap(sv.ErrorLocations[j].Up.DefaultHeaders)
		}
		for j := range sv.MirrorLocations {
			sv.MirrorLocations[j].Up.DefaultHeaders = swap(sv.MirrorLocations[j].Up.DefaultHeaders)
		}
	}
}

// firstServer names the first server, by name, that passes to the route's hostnames.
func (pv passthroughView) firstServer(servers []api.Server) string {
	for _, s := range servers {
		if s.Passthrough != nil && len(s.Hostnames) > 0 && contains(pv.Hostnames, s.Hostnames[0]) {
			return s.Name
		}
	}
	return ""
}
