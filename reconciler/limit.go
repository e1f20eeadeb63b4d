package reconciler

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// errLimit marks an Ingress that alone goes over a limit; errExternalName one that routes
// to a refused ExternalName Service.
var (
	errLimit        = errors.New("over a limit")
	errExternalName = errors.New("ExternalName refused")
)

// checkLimits counts an Ingress on its own: more hosts than a server may name, or more
// paths on one host than a server holds, refuse the Ingress alone. Counted on the merged
// server, one Ingress would take the whole host offline for everyone routing on it.
func checkLimits(hosts []string, routes []route) error {
	distinct := map[string]bool{}
	for _, h := range hosts {
		distinct[h] = true
	}
	if len(distinct) > api.MaxHostnames {
		return fmt.Errorf("%w: %d hosts, more than the %d an Ingress may name", errLimit, len(distinct), api.MaxHostnames)
	}
	perHost := map[string]int{}
	for _, r := range routes {
		perHost[r.host]++
	}
	for _, h := range slices.Sorted(maps.Keys(perHost)) {
		if n := perHost[h]; n > api.MaxLocations {
			return fmt.Errorf("%w: %d paths on host %s, more than the %d locations a host holds", errLimit, n, h, api.MaxLocations)
		}
	}
	return nil
}

// externalNameRefusal says why an ExternalName target is refused even when ExternalName
// Services are allowed: it names this machine, a link-local address or a cloud metadata
// service. (Names that resolve to such addresses are filtered when resolved.)
func externalNameRefusal(target string) string {
	t := strings.TrimSuffix(strings.ToLower(target), ".")
	if t == "localhost" || strings.HasSuffix(t, ".localhost") {
		return fmt.Sprintf("%q names this machine", target)
	}
	switch t {
	case "metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal":
		return fmt.Sprintf("%q names a cloud metadata service", target)
	}
	a, err := netip.ParseAddr(t)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	switch {
	case a.IsLoopback() || a.IsUnspecified():
		return fmt.Sprintf("%q is this machine", target)
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return fmt.Sprintf("%q is link-local (cloud metadata lives there)", target)
	case a == netip.MustParseAddr("fd00:ec2::254") || a == netip.MustParseAddr("100.100.100.200"):
		return fmt.Sprintf("%q is a cloud metadata address", target)
	}
	return ""
}

// tlsRefusal says why a TLS entry is refused: a host outside the Ingress's own rules
// (which would put this Ingress's certificate and redirect on another team's host), or a
// host its certificate does not cover.
func tlsRefusal(tlsHosts, ruleHosts []string, c *api.Certificate) string {
	own := map[string]bool{}
	for _, h := range ruleHosts {
		own[h] = true
	}
	for _, h := range tlsHosts {
		if !own[h] {
			return fmt.Sprintf("host %s is not among the Ingress's rules' hosts", h)
		}
		if h != api.CatchAllHostname && !certCovers(c.DNSNames, h) {
			return fmt.Sprintf("the certificate (names %s) does not cover host %s", strings.Join(c.DNSNames, ", "), h)
		}
	}
	return ""
}

// tlsHostsFor returns the hosts a TLS entry's hosts stand for: a rule host as it is, and
// a wildcard that no rule names ("*.example.com", as ingress-nginx accepts it) for each
// rule host it covers (one whole leftmost label, RFC 6125). A wildcard entry thus serves
// the Ingress's own hosts only, never the names of other Ingresses it would cover.
func tlsHostsFor(tlsHosts, ruleHosts []string) []string {
	var out []string
	for _, h := range tlsHosts {
		if slices.Contains(ruleHosts, h) || !strings.HasPrefix(h, "*.") {
			out = append(out, h)
			continue
		}
		n := len(out)
		for _, r := range ruleHosts {
			if r != api.CatchAllHostname && certCovers([]string{h}, r) && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		if len(out) == n {
			out = append(out, h) // refused: it covers none of the rules' hosts
		}
	}
	return out
}

// certCovers says whether a certificate's DNS names cover host as RFC 6125 allows: an
// exact name, or a wildcard "*.rest" standing for exactly one whole leftmost label. A
// wildcard host is covered by the same wildcard only.
func certCovers(names []string, host string) bool {
	host = strings.ToLower(host)
	for _, n := range names {
		n = strings.ToLower(strings.TrimSuffix(n, "."))
		if n == host {
			return true
		}
		rest, ok := strings.CutPrefix(n, "*.")
		if !ok || strings.HasPrefix(host, "*.") {
			continue
		}
		label, tail, ok := strings.Cut(host, ".")
		if ok && label != "" && tail == rest && strings.Contains(rest, ".") {
			return true
		}
	}
	return false
}
