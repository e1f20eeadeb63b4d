package render

import (
	"net"
	"net/url"

	"github.com/restyplane/restyplane/api"
)

// AuthAddr is where an external auth service's host name led when the conf was rendered:
// an allowed address, or why none (the name does not resolve, or only to loopback,
// link-local or metadata addresses). nginx resolves a proxy_pass host itself when it
// loads the conf, and one name that does not resolve fails nginx -t for every tenant; so
// the name is resolved here under the same rules as a backend's, and a location whose
// auth service has no address fails closed alone.
type AuthAddr struct {
	IP      string
	Refused string
}

// AuthHosts returns the host of every external auth URL of cfg.
func AuthHosts(cfg api.Config) []string {
	seen := map[string]bool{}
	var hosts []string
	for _, s := range cfg.Servers {
		for _, l := range s.Locations {
			if l.Auth == nil || l.Auth.External == nil {
				continue
			}
			u, err := url.Parse(l.Auth.External.URL)
			if err != nil || seen[u.Hostname()] {
				continue
			}
			seen[u.Hostname()] = true
			hosts = append(hosts, u.Hostname())
		}
	}
	return hosts
}

// addressAuth points an external auth's subrequest at the address its host resolved to,
// keeping the name for the Host header and TLS's SNI; without one the subrequest answers
// 503, which auth_request turns into a 500 for that location only.
func addressAuth(x *extAuthView, addrs map[string]AuthAddr) {
	u, err := url.Parse(x.URL)
	if err != nil {
		return
	}
	a, ok := addrs[u.Hostname()]
	switch {
	case !ok:
	case a.Refused != "":
		x.Refused = a.Refused
	default:
		x.HostHeader, x.SNI = u.Host, u.Hostname()
		u.Host = net.JoinHostPort(a.IP, portOf(u))
		x.URL = u.String()
	}
}

// portOf is u's port, or its scheme's.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
