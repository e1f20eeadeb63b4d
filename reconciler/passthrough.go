package reconciler

import (
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// planPassthrough settles ssl-passthrough: each host's TLS connections go to the backend
// of its "/" path, else of its first path, as ingress-nginx does. The host's TLS entries
// are not used (the backend presents its own certificate), which the Ingress is told.
func (p *plan) planPassthrough(hosts []string) error {
	if !p.ann.sslPassthrough {
		return nil
	}
	p.passthrough = map[string]*api.Passthrough{}
	for _, h := range hosts {
		if h == api.CatchAllHostname {
			return fmt.Errorf("%w: ssl-passthrough routes TLS connections by the name the client sends, and a rule without a host names none", errRefusedAnnotation)
		}
		backend := ""
		for _, r := range p.routes {
			if r.host != h {
				continue
			}
			if backend == "" || r.loc.Path == "/" {
				backend = r.loc.Backend
			}
			if r.loc.Path == "/" {
				break
			}
		}
		if backend == "" {
			return fmt.Errorf("%w: ssl-passthrough needs a path on host %s whose backend takes the TLS connections", errRefusedAnnotation, h)
		}
		p.passthrough[h] = &api.Passthrough{Backend: backend}
		if _, ok := p.tls[h]; ok {
			delete(p.tls, h)
			p.warnings = append(p.warnings, fmt.Sprintf("the TLS entry for host %s is not used: with ssl-passthrough the backend presents its own certificate", h))
		}
	}
	return nil
}

// passthroughRefusal says why an Ingress's ssl-passthrough cannot be served under the
// head's settings, "" if it can: with trusted proxies (realIPFrom) the terminating
// listener would take the client address from the passthrough router, so the store
// refuses passthrough servers, and one such Ingress would stop every write. The Ingress
// alone is refused, its paths held.
func passthroughRefusal(p *plan, head *api.State) string {
	if len(p.passthrough) == 0 || len(head.Settings.RealIPFrom) == 0 {
		return ""
	}
	return "annotation ssl-passthrough: passthrough is not available while restyplane's settings name trusted proxies (realIPFrom): the terminating listener would take the client address from the passthrough router, not from a trusted proxy's header"
}

// passthroughConflict says why a route of p may not join the host's server, "" if it
// may: the host passes its TLS as its oldest Ingress asked.
func passthroughConflict(hb *hostBuild, p *plan, host string) string {
	if hb == nil {
		return ""
	}
	mine := p.passthrough[host]
	if hb.passthrough == nil && mine == nil || hb.passthrough != nil && mine != nil && *hb.passthrough == *mine {
		return ""
	}
	return fmt.Sprintf("older %s passes the host's TLS connections %s, and this Ingress asks %s; every Ingress of a host must agree",
		hostOwner(hb), describePassthrough(hb.passthrough), describePassthrough(mine))
}

func describePassthrough(pt *api.Passthrough) string {
	if pt == nil {
		return "not at all (TLS ends at the proxy)"
	}
	return "to backend " + pt.Backend
}
