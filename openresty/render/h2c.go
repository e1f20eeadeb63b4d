package render

import (
	"fmt"
	"net"
	"strconv"
)

// Cleartext HTTP/2 (h2c) beside HTTP/1.1 on one plain port. nginx before 1.25.1 serves a
// plain `listen ... http2` socket as HTTP/2 only, so a port where a server passes to a
// gRPC backend, whose clients speak h2c with prior knowledge, gets a router in the stream
// module: njs reads the first bytes of each connection and, when they are HTTP/2's
// connection preface, hands it to an http2 listener on a unix socket, otherwise to an
// HTTP/1.1 one, naming the client's address in the PROXY protocol header as TLS
// passthrough's router does. The servers of that port listen on both sockets.

// h2cView is the router of one plain port: Listen is the port's TCP address, Var the
// stream variable that names the socket the connection goes to, HTTP1 and HTTP2 the
// sockets ("unix:...") the servers of the port listen on.
type h2cView struct {
	Listen, Var, HTTP1, HTTP2 string
}

// h2cVar prefixes the routers' variables; the index keeps them unique.
const h2cVar = "$rp_h2c_target_"

// h2cRouters settles a router for every plain address where a block passes to a gRPC
// backend, in the order the blocks come. It runs before ownListens rewrites the blocks'
// listens, and needs the stream module with njs.
func (v *confView) h2cRouters(opts Options) error {
	proxyHost, proxyPort, _ := net.SplitHostPort(v.ProxyListen)
	w := opts.Workers()
	seen := map[string]bool{}
	for _, sv := range v.Servers {
		if !sv.speaksGRPC() {
			continue
		}
		// The block's plain address, as ownListens writes it.
		host, port := proxyHost, proxyPort
		if sv.Address != "" {
			host = sv.Address
		}
		if sv.Port != 0 {
			port = strconv.Itoa(sv.Port)
		}
		addr := v.ProxyListen
		if sv.Address != "" || sv.Port != 0 {
			addr = net.JoinHostPort(host, port)
		}
		if seen[addr] {
			continue
		}
		if v.RealIP != nil {
			return &ServerError{sv.Name, fmt.Errorf("gRPC on plain port %s is not available with the realIPFrom setting: its connections come through the h2c router", addr)}
		}
		seen[addr] = true
		i := len(v.H2C)
		v.H2C = append(v.H2C, h2cView{Listen: addr, Var: h2cVar + strconv.Itoa(i),
			HTTP1: "unix:" + w.H2CSocket(i, 1), HTTP2: "unix:" + w.H2CSocket(i, 2)})
	}
	if len(v.H2C) == 0 {
		return nil
	}
	v.LoadStream = opts.StreamModule
	v.LoadStreamJS = opts.StreamJSModule
	v.H2CScript = Layout(opts.Prefix).H2CScript()
	v.portBehindRouter()
	return nil
}

// speaksGRPC says a location of the block passes to a gRPC backend.
func (sv serverView) speaksGRPC() bool {
	for _, l := range sv.Locations {
		if l.Mod == "grpc" {
			return true
		}
	}
	return false
}

// h2cListens replaces every listen on a routed address with the router's two sockets,
// each with the PROXY protocol, and sets the listens of the blocks on the instance's own
// plain port (Plain, PlainDefault). It runs after ownListens.
func (v *confView) h2cListens() {
	behind := func(l listenView) []listenView {
		for _, h := range v.H2C {
			if !l.SSL && l.Addr == h.Listen {
				return []listenView{{Addr: h.HTTP1, ProxyProtocol: true, Default: l.Default},
					{Addr: h.HTTP2, ProxyProtocol: true, HTTP2: true, Default: l.Default}}
			}
		}
		return []listenView{l}
	}
	all := func(ls []listenView) []listenView {
		var out []listenView
		for _, l := range ls {
			out = append(out, behind(l)...)
		}
		return out
	}
	v.Plain = behind(listenView{Addr: v.ProxyListen})
	v.PlainDefault = behind(listenView{Addr: v.ProxyListen, Default: true})
	for i := range v.Servers {
		v.Servers[i].Listens = all(v.Servers[i].Listens)
	}
	for i := range v.PortDefaults {
		v.PortDefaults[i] = all(v.PortDefaults[i])
	}
	v.BehindRouter = v.Passthrough != nil || v.H2C != nil
}
