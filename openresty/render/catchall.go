package render

import (
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// The catch-all. A server naming api.CatchAllHostname ("_": an Ingress rule without a host,
// an Ingress's default backend without rules, or a REST server that asks for it) answers
// every request whose Host no other block names, and requests without a Host. nginx matches
// "_" only as a literal Host header, so the catch-all is not a server_name: its block is
// the default_server of both listeners, in place of the block that answers 404.

// markCatchAll makes sv the default server when its hostnames hold the catch-all. "_" is
// listed first: nginx gives $host the first server_name for a request without a Host
// (HTTP/1.0), and the upstream is sent that Host, as ingress-nginx sends it.
func markCatchAll(sv *serverView) {
	if !contains(sv.Hostnames, api.CatchAllHostname) {
		return
	}
	if sv.Address != "" || sv.Port != 0 || sv.TLSPort != 0 {
		sv.OwnDefault = true // the default server of its own sockets (see ownListens)
	} else {
		sv.Default = true
	}
	names := []string{api.CatchAllHostname}
	for _, h := range sv.Hostnames {
		if h != api.CatchAllHostname {
			names = append(names, h)
		}
	}
	sv.Hostnames = names
}

// catchAll settles what the catch-all changes outside its block: HTTPS is listened on
// (with the default certificate unless the catch-all has its own), and the hostnames of
// the blocks that listen only for HTTP are listed, so that the catch-all answers them 404
// over HTTPS instead of routing a host that a server names.
func (v *confView) catchAll() {
	for _, sv := range v.Servers {
		v.CatchAll = v.CatchAll || sv.Default
	}
	if !v.CatchAll {
		return
	}
	v.TLS = true
	for _, sv := range v.Servers {
		if sv.TLS == "" && !sv.Default && sv.Port == 0 && sv.Address == "" {
			v.PlainHosts = append(v.PlainHosts, sv.Hostnames...)
		}
	}
	for _, w := range v.WWW {
		if w.TLS == "" {
			v.PlainHosts = append(v.PlainHosts, w.From)
		}
	}
}

// reachable says whether some request reaches the block: it is the default server, or it
// names a hostname a client can send.
func (sv *serverView) reachable() bool {
	if sv.Default || sv.OwnDefault {
		return true
	}
	for _, h := range sv.Hostnames {
		if h != api.CatchAllHostname {
			return true
		}
	}
	return false
}

// checkReachable refuses a view in which a server could answer no request: a server that
// is applied must be served, not only written. reached holds the servers of the blocks
// that some request reaches; every server must be among them, and one block at most may
// be the default server.
func checkReachable(v *confView, servers []api.Server, reached map[string]bool) error {
	defaults := 0
	for _, sv := range v.Servers {
		if sv.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return fmt.Errorf("%d server blocks hold the catch-all hostname %q, and nginx has one default server", defaults, api.CatchAllHostname)
	}
	for _, s := range servers {
		if !reached[s.Name] {
			return fmt.Errorf("server %q: no request can reach it: its block is not the default server and names no hostname but %q, which nginx matches only as a literal Host",
				s.Name, api.CatchAllHostname)
		}
	}
	return nil
}

// defaultTLSName stands for the proxy's default certificate where a view holds a
// certificate's name: no certificate of the API can have it (names have no spaces).
const defaultTLSName = "default certificate"

// defaultCertFiles points the views that present the default certificate at its files,
// which live in the prefix (see Layout.DefaultCert).
func defaultCertFiles(v *confView) {
	for i := range v.Servers {
		if v.Servers[i].DefaultTLS {
			v.Servers[i].CertFile, v.Servers[i].KeyFile = v.Paths.DefaultCert, v.Paths.DefaultKey
		}
	}
	for i := range v.WWW {
		if v.WWW[i].DefaultTLS {
			v.WWW[i].CertFile, v.WWW[i].KeyFile = v.Paths.DefaultCert, v.Paths.DefaultKey
		}
	}
}
