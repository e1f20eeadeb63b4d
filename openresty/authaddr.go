package openresty

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// authLookupTimeout bounds the lookups of one render's auth service names, made together.
const authLookupTimeout = 3 * time.Second

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

// authHosts returns the host of every external auth URL of cfg.
func authHosts(cfg api.Config) []string {
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

// resolveAuthHosts resolves the auth services' host names of cfg at once. An IP literal
// is the writer's own choice, as for endpoints, but never a link-local or metadata
// address.
func resolveAuthHosts(r hostResolver, cfg api.Config) map[string]AuthAddr {
	hosts := authHosts(cfg)
	if len(hosts) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), authLookupTimeout)
	defer cancel()
	out := make(map[string]AuthAddr, len(hosts))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			if why := refusedAddress(a); why != "" && !a.Unmap().IsLoopback() {
				out[h] = AuthAddr{Refused: h + " is " + why}
			}
			continue
		}
		wg.Go(func() {
			addrs, err := allowed(ctx, r, h)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out[h] = AuthAddr{Refused: err.Error()}
				return
			}
			out[h] = AuthAddr{IP: addrs[0]}
		})
	}
	wg.Wait()
	return out
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

var _ hostResolver = net.DefaultResolver
