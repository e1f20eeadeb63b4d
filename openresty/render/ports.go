package render

import (
	"fmt"
	"net"
	"slices"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// Servers on ports of their own (api.Server.Port and ServerTLS.Port, as a Gateway
// listener's port). A port equal to the instance's own listener is the instance's: 0.
// Servers that share a hostname on one port share a block; on different ports each has
// its own. Every socket has one default server, which answers the Hosts no block there
// names: the catch-all server of that port, or else a block that answers 404.

// listenView is one listen directive of a block on ports of its own.
type listenView struct {
	Addr                               string
	SSL, ProxyProtocol, HTTP2, Default bool
}

// ownPorts makes a port equal to the instance's own 0, and an address that is the
// instance's own listen address "", on srv, a copy of a config's server, and refuses a
// port the instance has for the other scheme or keeps for itself.
func ownPorts(srv *api.Server, opts Options, proxyPort, tlsPort int) error {
	if srv.Address != "" {
		proxyHost, _, _ := net.SplitHostPort(opts.ProxyListen)
		tlsHost, _, _ := net.SplitHostPort(opts.TLSListen)
		switch {
		case srv.Address == proxyHost && srv.Address == tlsHost:
			srv.Address = ""
		case srv.Address == proxyHost || srv.Address == tlsHost:
			return fmt.Errorf("address %s is the host of one of the instance's own listen addresses (%s, %s) but not of the other", srv.Address, opts.ProxyListen, opts.TLSListen)
		}
	}
	if srv.Port == proxyPort {
		srv.Port = 0
	}
	if srv.TLS != nil && srv.TLS.Port == tlsPort {
		t := *srv.TLS // the config's own is never changed
		t.Port = 0
		srv.TLS = &t
	}
	plain, tls := srv.Port, 0
	if srv.TLS != nil {
		tls = srv.TLS.Port
	}
	switch {
	case plain == tlsPort:
		return fmt.Errorf("port %d is the instance's HTTPS port", plain)
	case tls != 0 && tls == proxyPort:
		return fmt.Errorf("HTTPS port %d is the instance's plain-HTTP port", tls)
	case plain != 0 && slices.Contains(opts.ReservedPorts, plain):
		return fmt.Errorf("port %d is kept for the instance's own use", plain)
	case tls != 0 && slices.Contains(opts.ReservedPorts, tls):
		return fmt.Errorf("HTTPS port %d is kept for the instance's own use", tls)
	case srv.Address == "" && slices.Contains(srv.Hostnames, api.CatchAllHostname) && (plain != 0) != (tls != 0) && srv.TLS != nil:
		return fmt.Errorf("a catch-all server listens on its own ports or on the instance's, not on both")
	}
	return nil
}

// ownListens writes the listen directives of the blocks on ports or at an address of
// their own, makes each socket's catch-all its default server, and adds a 404 block for
// every socket of their own that has none. It also settles every block's HTTPS redirect
// port. A block at an address of its own listens there on its ports, or on the
// instance's own port numbers.
func (v *confView) ownListens() error {
	proxyHost, proxyPort, _ := net.SplitHostPort(v.ProxyListen)
	tlsHost, tlsPort, _ := net.SplitHostPort(v.TLSListen)
	kind := map[string]string{} // address and own port -> "plain" or "HTTPS"
	owner := map[string]int{}   // own socket -> the block that is its catch-all, from 1
	var sockets []listenView
	v.HTTPSDefault = v.Passthrough != nil
	for i := range v.Servers {
		sv := &v.Servers[i]
		sv.HTTPSPort = v.TLSPort
		if sv.TLSPort != 0 {
			sv.HTTPSPort = sv.TLSPort
		}
		v.HTTPSDefault = v.HTTPSDefault || sv.TLS != "" && sv.TLSPort == 0 && sv.Address == ""
		if sv.Address == "" && sv.Port == 0 && (sv.TLS == "" || sv.TLSPort == 0) {
			continue
		}
		plainHost, plainPort, tlsAt, tlsAtPort := proxyHost, proxyPort, tlsHost, tlsPort
		if sv.Address != "" {
			plainHost, tlsAt = sv.Address, sv.Address
		}
		if sv.Port != 0 {
			plainPort = strconv.Itoa(sv.Port)
		}
		if sv.TLSPort != 0 {
			tlsAtPort = strconv.Itoa(sv.TLSPort)
		}
		plain := listenView{Addr: v.ProxyListen}
		if sv.Address != "" || sv.Port != 0 {
			plain.Addr = net.JoinHostPort(plainHost, plainPort)
		}
		sv.Listens = []listenView{plain}
		if sv.TLS != "" {
			tls := listenView{Addr: v.HTTPSListen, SSL: true, ProxyProtocol: v.Passthrough != nil, HTTP2: v.S.HTTP2}
			if sv.Address != "" || sv.TLSPort != 0 {
				tls.Addr, tls.ProxyProtocol = net.JoinHostPort(tlsAt, tlsAtPort), false
			}
			sv.Listens = append(sv.Listens, tls)
		}
		for j, l := range sv.Listens {
			port := []int{sv.Port, sv.TLSPort}[j]
			if port == 0 && sv.Address == "" {
				continue // the instance's own socket has its default server already
			}
			if port == 0 {
				port, _ = strconv.Atoi([]string{plainPort, tlsAtPort}[j])
			}
			at := sv.Address + " " + strconv.Itoa(port)
			if k := kind[at]; k != "" && k != kindOf(l) {
				return &ServerError{sv.Name, fmt.Errorf("port %d%s is another server's %s port", port, addressPhrase(sv.Address), k)}
			}
			kind[at] = kindOf(l)
			if !sv.OwnDefault {
				if owner[l.Addr] == 0 {
					owner[l.Addr] = -1
					sockets = append(sockets, listenView{Addr: l.Addr, SSL: l.SSL, HTTP2: l.HTTP2})
				}
				continue
			}
			if o := owner[l.Addr]; o > 0 {
				return &ServerError{sv.Name, fmt.Errorf("servers %q and %q both hold the catch-all hostname on %s", v.Servers[o-1].Name, sv.Name, l.Addr)}
			}
			owner[l.Addr] = i + 1
			sv.Listens[j].Default = true
		}
	}
	for _, s := range sockets {
		if owner[s.Addr] < 0 {
			v.PortDefaults = append(v.PortDefaults, []listenView{s})
		}
	}
	return nil
}

// addressPhrase spells a block's own address for a message, "" for the instance's.
func addressPhrase(addr string) string {
	if addr == "" {
		return ""
	}
	return " at " + addr
}

func kindOf(l listenView) string {
	if l.SSL {
		return "HTTPS"
	}
	return "plain-HTTP"
}
