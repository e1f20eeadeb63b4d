package nginx_test

import (
	"net"
	"net/http"
	"testing"
)

// TestForceSSLRedirectBehindALoadBalancer: behind a load balancer that ends TLS and
// forwards plain HTTP, a server with forceSSLRedirect goes by the X-Forwarded-Proto the
// balancer sets when useForwardedHeaders trusts it, as ingress-nginx does: a request the
// balancer says came over https is served, not redirected to itself again and again; one
// it says came over http is redirected to https on the balancer's default port. Without
// the header, and without the setting, the connection's scheme decides, as before.
func TestForceSSLRedirectBehindALoadBalancer(t *testing.T) {
	shopUp := startUpstream(t, "shop", 0)
	shop := server("shop", "shop.test", "/", "shop")
	shop.ForceSSLRedirect = true
	for _, trusted := range []bool{true, false} {
		cfg := config(nil, shop)
		cfg.Backends = append(cfg.Backends, backend("shop", shopUp))
		cfg.Settings.UseForwardedHeaders = trusted
		in := startNginx(t, cfg)
		push(t, in, 1, cfg.Backends...)
		addr := in.Options().ProxyListen
		_, tlsPort, _ := net.SplitHostPort(in.Options().TLSListen)

		direct := "https://shop.test:" + tlsPort + "/cart?x=1"
		cases := []struct {
			proto, location string
			status          int
		}{
			{"", direct, http.StatusPermanentRedirect},
			{"https", "", http.StatusOK},
			{"http", "https://shop.test/cart?x=1", http.StatusPermanentRedirect},
		}
		if !trusted {
			// A header any client can send decides nothing unless the setting trusts it.
			cases[1] = struct {
				proto, location string
				status          int
			}{"https", direct, http.StatusPermanentRedirect}
			cases[2].location = direct
		}
		for _, c := range cases {
			var header []string
			if c.proto != "" {
				header = []string{"X-Forwarded-Proto", c.proto}
			}
			a := get(t, addr, "shop.test", "/cart?x=1", header...)
			if a.status != c.status || a.header.Get("Location") != c.location {
				t.Errorf("useForwardedHeaders %v, X-Forwarded-Proto %q: %d %q; want %d %q",
					trusted, c.proto, a.status, a.header.Get("Location"), c.status, c.location)
			}
			if c.status == http.StatusOK && a.upstream != "shop" {
				t.Errorf("useForwardedHeaders %v, X-Forwarded-Proto %q: answered by %q, want the shop upstream", trusted, c.proto, a.upstream)
			}
		}
	}
}
