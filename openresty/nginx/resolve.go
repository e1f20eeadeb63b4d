package nginx

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// hostResolver looks names up; *net.Resolver is the real one.
type hostResolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

var _ hostResolver = (*net.Resolver)(nil)

// metadataAddrs are the cloud instance-metadata services, which hand out credentials; the
// reconciler refuses the same ones as literal ExternalNames (externalNameRefusal).
var metadataAddrs = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200")}

// refusedAddress says why a resolved address may not be an endpoint, or "" when it may.
// A DNS name is input from whoever writes a backend (an ExternalName Service in another
// namespace, say); it must not lead the proxy to itself, the control plane's API on
// loopback or the cloud's metadata service. Literal IP endpoints are the writer's own
// choice and are not filtered.
func refusedAddress(a netip.Addr) string {
	a = a.Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return "a metadata address"
		}
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	}
	return ""
}

// resolve returns backends whose endpoints are all IP addresses: each endpoint named by
// DNS becomes one endpoint per allowed address the name resolves to (at most
// render.MaxAddressesPerName, the lowest), with the same port and weight. A backend with a name
// that does not resolve, or resolves to no allowed address, is left out and reported in
// skipped, so that it cannot hold back the others. Backends are copied, never changed in
// place.
func resolve(ctx context.Context, r hostResolver, backends []api.Backend) (out []api.Backend, skipped []api.SkippedObject) {
	out = make([]api.Backend, 0, len(backends))
	for _, b := range backends {
		eps, err := resolveEndpoints(ctx, r, b.Endpoints)
		if err != nil {
			skipped = append(skipped, api.SkippedObject{Kind: api.KindBackend, Name: b.Name, Reason: err.Error()})
			continue
		}
		b.Endpoints = eps
		out = append(out, b)
	}
	return out, skipped
}

func resolveEndpoints(ctx context.Context, r hostResolver, in []api.Endpoint) ([]api.Endpoint, error) {
	allIP := true
	for _, e := range in {
		if _, err := netip.ParseAddr(e.Address); err != nil {
			allIP = false
		}
	}
	if allIP {
		return in, nil
	}
	eps := make([]api.Endpoint, 0, len(in))
	seen := map[string]bool{}
	for _, e := range in {
		addrs := []string{e.Address}
		if _, err := netip.ParseAddr(e.Address); err != nil {
			if addrs, err = allowed(ctx, r, e.Address); err != nil {
				return nil, err
			}
		}
		for _, a := range addrs {
			key := fmt.Sprintf("%s|%d", a, e.Port)
			if !seen[key] {
				seen[key] = true
				eps = append(eps, api.Endpoint{Address: a, Port: e.Port, Weight: e.Weight})
			}
		}
	}
	return eps, nil
}

// allowed resolves name and keeps the addresses refusedAddress lets through.
func allowed(ctx context.Context, r hostResolver, name string) ([]string, error) {
	found, err := r.LookupHost(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	var keep []netip.Addr
	var refused []string
	for _, s := range found {
		a, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		if why := refusedAddress(a); why != "" {
			refused = append(refused, s+" is "+why)
			continue
		}
		keep = append(keep, a.Unmap())
	}
	if len(keep) == 0 {
		if len(refused) > 0 {
			return nil, fmt.Errorf("resolve %s: refused: %s", name, strings.Join(refused, ", "))
		}
		return nil, fmt.Errorf("resolve %s: no address", name)
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Less(keep[j]) })
	if len(keep) > render.MaxAddressesPerName {
		keep = keep[:render.MaxAddressesPerName]
	}
	out := make([]string, len(keep))
	for i, a := range keep {
		out[i] = a.String()
	}
	return out, nil
}
