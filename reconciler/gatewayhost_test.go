package reconciler

import (
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestRouteHosts: Gateway API's hostname intersection of a listener and a route, the
// more specific of the two winning, wildcards matching names of any depth below them.
func TestRouteHosts(t *testing.T) {
	for _, c := range []struct {
		listener string
		route    []string
		want     string
	}{
		{"", nil, "_"},
		{"shop.example.com", nil, "shop.example.com"},
		{"", []string{"a.example.com", "b.example.com"}, "a.example.com b.example.com"},
		{"shop.example.com", []string{"shop.example.com", "other.example.com"}, "shop.example.com"},
		{"*.example.com", []string{"shop.example.com", "a.b.example.com", "example.com"}, "shop.example.com a.b.example.com"},
		{"*.example.com", []string{"*.shop.example.com"}, "*.shop.example.com"},
		{"*.example.com", []string{"*.example.com"}, "*.example.com"},
		{"shop.example.com", []string{"*.example.com"}, "shop.example.com"},
		{"*.shop.example.com", []string{"*.example.com"}, "*.shop.example.com"},
		{"shop.example.com", []string{"*.other.com"}, ""},
		{"*.example.com", []string{"*.other.com", "example.com"}, ""},
		{"example.com", []string{"*.example.com"}, ""},
	} {
		var l *gatewayv1.Hostname
		if c.listener != "" {
			h := gatewayv1.Hostname(c.listener)
			l = &h
		}
		var r []gatewayv1.Hostname
		for _, h := range c.route {
			r = append(r, gatewayv1.Hostname(h))
		}
		if got := strings.Join(routeHosts(l, r), " "); got != c.want {
			t.Errorf("routeHosts(%q, %v) = %q, want %q", c.listener, c.route, got, c.want)
		}
	}
}
