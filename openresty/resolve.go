package openresty

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/restyplane/restyplane/api"
)

// resolve returns backends whose endpoints are all IP addresses: each endpoint named by
// DNS becomes one endpoint per address the name resolves to, with the same port and
// weight. Backends are copied, never changed in place.
func (c *AdminClient) resolve(ctx context.Context, backends []api.Backend) ([]api.Backend, error) {
	out := make([]api.Backend, len(backends))
	for i, b := range backends {
		out[i] = b
		allIP := true
		for _, e := range b.Endpoints {
			if _, err := netip.ParseAddr(e.Address); err != nil {
				allIP = false
			}
		}
		if allIP {
			continue
		}
		eps := make([]api.Endpoint, 0, len(b.Endpoints))
		seen := map[string]bool{}
		for _, e := range b.Endpoints {
			addrs := []string{e.Address}
			if _, err := netip.ParseAddr(e.Address); err != nil {
				if addrs, err = c.resolver.LookupHost(ctx, e.Address); err != nil {
					return nil, fmt.Errorf("backend %q: resolve %s: %w", b.Name, e.Address, err)
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
		out[i].Endpoints = eps
	}
	return out, nil
}
