package reconciler

import (
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
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

// TestListenerIsolation: a route's hostname that a more specific listener of its Gateway
// on the same port matches is served through that listener only.
func TestListenerIsolation(t *testing.T) {
	g := &gatewayState{}
	listener := func(name, host string) *listenerState {
		l := &listenerState{gw: g, spec: kubetest.Listener(name, 80, host), kinds: []gatewayv1.RouteGroupKind{{Kind: "HTTPRoute"}}}
		g.listeners = append(g.listeners, l)
		return l
	}
	empty, wild, wildFoo, abc := listener("empty", ""), listener("wild", "*.example.com"), listener("wild-foo", "*.foo.example.com"), listener("abc", "abc.foo.example.com")
	other := &listenerState{gw: g, spec: kubetest.Listener("other", 8080, "*.example.com"), kinds: wild.kinds}
	g.listeners = append(g.listeners, other)
	for _, c := range []struct {
		l    *listenerState
		host string
		want bool
	}{
		{empty, "bar.com", false},
		{empty, "*.example.com", true},
		{empty, "*.foo.example.com", true},
		{empty, "abc.foo.example.com", true},
		{wild, "*.example.com", false},
		{wild, "*.foo.example.com", true},
		{wild, "x.example.com", false},
		{wildFoo, "*.foo.example.com", false},
		{wildFoo, "abc.foo.example.com", true},
		{abc, "abc.foo.example.com", false},
		{other, "*.foo.example.com", false}, // another port: no listener of its own there
	} {
		if got := c.l.isolatedFrom(c.host); got != c.want {
			t.Errorf("listener %s isolated from %s = %t, want %t", c.l.spec.Name, c.host, got, c.want)
		}
	}
}
