package nginx

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// authLookupTimeout bounds the lookups of one render's auth service names, made together.
const authLookupTimeout = 3 * time.Second

// resolveAuthHosts resolves the auth services' host names of cfg at once. An IP literal
// is the writer's own choice, as for endpoints, but never a link-local or metadata
// address.
func resolveAuthHosts(r hostResolver, cfg api.Config) map[string]render.AuthAddr {
	hosts := render.AuthHosts(cfg)
	if len(hosts) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), authLookupTimeout)
	defer cancel()
	out := make(map[string]render.AuthAddr, len(hosts))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			if why := refusedAddress(a); why != "" && !a.Unmap().IsLoopback() {
				out[h] = render.AuthAddr{Refused: h + " is " + why}
			}
			continue
		}
		wg.Go(func() {
			addrs, err := allowed(ctx, r, h)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out[h] = render.AuthAddr{Refused: err.Error()}
				return
			}
			out[h] = render.AuthAddr{IP: addrs[0]}
		})
	}
	wg.Wait()
	return out
}
