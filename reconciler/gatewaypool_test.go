package reconciler

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestParseAddressPool: addresses and prefixes, each checked; what is not one is refused.
func TestParseAddressPool(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"127.214.1.0/24", "127.214.1.0/24", ""},
		{"192.0.2.10, 2001:db8::/120", "192.0.2.10/32,2001:db8::/120", ""},
		{"127.214.1.5/24", "", "host bits set"},
		{"gw.example.com", "", "neither an IP address nor a CIDR prefix"},
		{"0.0.0.0", "", "not one unicast address"},
		{" , ", "", "no address"},
	} {
		p, err := ParseAddressPool(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseAddressPool(%q) = %v, want an error saying %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParseAddressPool(%q): %v", c.in, err)
		case c.err == "" && p.String() != c.want:
			t.Errorf("ParseAddressPool(%q) = %s, want %s", c.in, p, c.want)
		}
	}
}

// TestAddressPoolPick: a name always gets the same address; the next free one when it is
// held; never a network, broadcast or excluded address; none when the pool is full.
func TestAddressPoolPick(t *testing.T) {
	p, err := ParseAddressPool("127.214.1.0/29", "127.214.1.3")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.size(), uint64(6); got != want {
		t.Fatalf("size = %d, want %d (a /29 without its network and broadcast addresses)", got, want)
	}
	none := func(netip.Addr) bool { return false }
	a, _ := p.pick("infra/one", none)
	if b, _ := p.pick("infra/one", none); a != b {
		t.Errorf("pick gave infra/one %s, then %s; want the same address every time", a, b)
	}
	b, _ := p.pick("infra/one", func(x netip.Addr) bool { return x == a })
	if b == a || !b.IsValid() {
		t.Errorf("pick with %s held = %s, want another address", a, b)
	}
	held := map[netip.Addr]bool{}
	for i := 0; i < 5; i++ {
		x, ok := p.pick("gw"+string(rune('a'+i)), func(x netip.Addr) bool { return held[x] })
		if !ok {
			t.Fatalf("pick %d: pool full too early", i)
		}
		if held[x] || p.usable(x) != "" {
			t.Fatalf("pick %d = %s: held or not usable (%s)", i, x, p.usable(x))
		}
		held[x] = true
	}
	for _, x := range []string{"127.214.1.0", "127.214.1.7", "127.214.1.3"} {
		if held[netip.MustParseAddr(x)] {
			t.Errorf("pick gave %s, the network, broadcast or an excluded address", x)
		}
	}
	if x, ok := p.pick("last", func(x netip.Addr) bool { return held[x] }); ok {
		t.Errorf("pick in a full pool = %s, want none", x)
	}
	for addr, want := range map[string]string{"127.214.1.6": "", "127.214.1.3": "the proxy's own", "127.214.1.7": "not in the addresses", "10.0.0.1": "not in the addresses"} {
		if got := p.usable(netip.MustParseAddr(addr)); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("usable(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestAddressPoolRequestedOnly: addresses given only on request are usable, never picked.
func TestAddressPoolRequestedOnly(t *testing.T) {
	p, err := ParseAddressPool("127.214.1.4/31")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.RequestedOnly("127.214.2.9"); err != nil {
		t.Fatal(err)
	}
	if why := p.usable(netip.MustParseAddr("127.214.2.9")); why != "" {
		t.Errorf("usable(127.214.2.9) = %q, want usable on request", why)
	}
	held := map[netip.Addr]bool{}
	for i := 0; i < 3; i++ {
		x, ok := p.pick(fmt.Sprint("gw", i), func(x netip.Addr) bool { return held[x] })
		if x.String() == "127.214.2.9" || (i < 2) != ok {
			t.Errorf("pick %d = %s %t, want .4 and .5 only", i, x, ok)
		}
		held[x] = true
	}
}

// TestPooledFeatures: a class claims the addresses Gateways ask for only with a pool.
func TestPooledFeatures(t *testing.T) {
	has := func(fs []gatewayv1.SupportedFeature, name string) bool {
		for _, f := range fs {
			if string(f.Name) == name {
				return true
			}
		}
		return false
	}
	for _, pooled := range []bool{false, true} {
		gs := &GatewaySnapshot{}
		if pooled {
			gs.Pool = &AddressPool{}
		}
		fs := classFeatures(gs)
		for _, n := range []string{"GatewayStaticAddresses", "GatewayAddressEmpty"} {
			if has(fs, n) != pooled {
				t.Errorf("with a pool %t, %s claimed %t", pooled, n, has(fs, n))
			}
		}
		if !has(fs, "GatewayHTTPListenerIsolation") {
			t.Errorf("GatewayHTTPListenerIsolation not claimed (pool %t)", pooled)
		}
	}
}
