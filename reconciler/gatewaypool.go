package reconciler

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// AddressPool is where Gateways get addresses of their own (Options.GatewayAddresses):
// prefixes the proxy may listen on, each address of them given to at most one Gateway.
// The network and broadcast addresses of an IPv4 prefix of 4 addresses or more are left
// out; a prefix counts at most maxPoolPrefix addresses.
type AddressPool struct {
	prefixes []netip.Prefix
	// requested are given only to a Gateway whose spec.addresses asks for one, never
	// picked for another (as MetalLB's pools without autoAssign): addresses kept for
	// Gateways that must have a known one.
	requested []netip.Prefix
	// exclude are addresses never given out: the proxy's own listen addresses.
	exclude map[netip.Addr]bool
}

// maxPoolPrefix bounds the addresses one prefix contributes, so that an IPv6 /64 is a
// pool of a million addresses rather than of 2^64.
const maxPoolPrefix = 1 << 20

// ParseAddressPool reads a comma-separated list of IP addresses and CIDR prefixes
// ("127.214.1.0/24,192.0.2.10"); exclude are addresses never given out.
func ParseAddressPool(s string, exclude ...string) (*AddressPool, error) {
	prefixes, err := parsePrefixes(s)
	if err != nil {
		return nil, err
	}
	if len(prefixes) == 0 {
		return nil, fmt.Errorf("gateway address pool: no address in %q", s)
	}
	p := &AddressPool{prefixes: prefixes, exclude: map[netip.Addr]bool{}}
	for _, e := range exclude {
		if a, err := netip.ParseAddr(e); err == nil {
			p.exclude[a] = true
		}
	}
	return p, nil
}

// RequestedOnly adds addresses and prefixes, as ParseAddressPool reads them, that are
// given only to a Gateway that asks for one in its spec.addresses.
func (p *AddressPool) RequestedOnly(s string) error {
	prefixes, err := parsePrefixes(s)
	p.requested = append(p.requested, prefixes...)
	return err
}

// parsePrefixes reads a comma-separated list of IP addresses and CIDR prefixes.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		pre, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("gateway address pool: %q is neither an IP address nor a CIDR prefix", f)
			}
			pre = netip.PrefixFrom(a, a.BitLen())
		}
		if pre != pre.Masked() {
			return nil, fmt.Errorf("gateway address pool: %q has host bits set; the prefix is %s", f, pre.Masked())
		}
		if err := api.ValidListenAddress("gatewayAddresses", pre.Addr().String()); err != nil && pre.Bits() == pre.Addr().BitLen() {
			return nil, fmt.Errorf("gateway address pool: %w", err)
		}
		if pre.Addr().Zone() != "" || pre.Addr().Is4In6() {
			return nil, fmt.Errorf("gateway address pool: %q: give IPv4 prefixes as IPv4, without a zone", f)
		}
		out = append(out, pre)
	}
	return out, nil
}

// String spells the pool as ParseAddressPool reads it.
func (p *AddressPool) String() string {
	out := make([]string, len(p.prefixes))
	for i, pre := range p.prefixes {
		out[i] = pre.String()
	}
	return strings.Join(out, ",")
}

// all spells both parts of the pool.
func (p *AddressPool) all() string {
	s := p.String()
	for _, pre := range p.requested {
		s += "," + pre.String()
	}
	return s
}

// span is the first offset and the number of addresses a prefix gives out.
func span(pre netip.Prefix) (first, n uint64) {
	bits := pre.Addr().BitLen() - pre.Bits()
	if bits >= 20 {
		return 0, maxPoolPrefix
	}
	n = 1 << bits
	if pre.Addr().Is4() && bits >= 2 {
		return 1, n - 2
	}
	return 0, n
}

// size is how many addresses the pool holds.
func (p *AddressPool) size() uint64 {
	var n uint64
	for _, pre := range p.prefixes {
		_, c := span(pre)
		n += c
	}
	return n
}

// nth is the pool's i-th address, i < size().
func (p *AddressPool) nth(i uint64) netip.Addr {
	for _, pre := range p.prefixes {
		first, c := span(pre)
		if i >= c {
			i -= c
			continue
		}
		return addOffset(pre.Addr(), first+i)
	}
	return netip.Addr{}
}

// addOffset is a + off, within a's family.
func addOffset(a netip.Addr, off uint64) netip.Addr {
	b := a.As16()
	for k := 15; k >= 0 && off > 0; k-- {
		sum := uint64(b[k]) + off&0xff
		b[k] = byte(sum)
		off = off>>8 + sum>>8
	}
	out := netip.AddrFrom16(b)
	if a.Is4() {
		out = out.Unmap()
	}
	return out
}

// usable says why an address cannot be given out ("" when it can): it is outside the
// pool, or the proxy's own.
func (p *AddressPool) usable(a netip.Addr) string {
	if p.exclude[a] {
		return fmt.Sprintf("%s is the proxy's own listen address", a)
	}
	for _, pre := range append(p.prefixes, p.requested...) {
		if !pre.Contains(a) {
			continue
		}
		if pre.Addr().BitLen()-pre.Bits() >= 20 {
			return "" // the pool counts part of it; the proxy may listen on all of it
		}
		first, c := span(pre)
		if off := offsetIn(pre, a); off >= first && off < first+c {
			return ""
		}
	}
	return fmt.Sprintf("%s is not in the addresses the proxy may listen on (%s, --gateway-addresses and --gateway-requested-addresses)", a, p.all())
}

// offsetIn is a's offset from pre's first address, for a in pre with fewer than 64 host
// bits: the prefix's own address has its host bits zero, so the offset is a's host bits.
func offsetIn(pre netip.Prefix, a netip.Addr) uint64 {
	x, y := pre.Addr().As16(), a.As16()
	var off uint64
	for k := 8; k < 16; k++ {
		off = off<<8 | uint64(x[k]^y[k])
	}
	return off
}

// pick gives the Gateway key an address no one holds: the one its name hashes to, or
// the next free one after it, so that a Gateway gets the same address at every sync and
// restart while the older Gateways keep theirs. It returns false when the pool is full.
func (p *AddressPool) pick(key string, held func(netip.Addr) bool) (netip.Addr, bool) {
	n := p.size()
	h := fnv.New64a()
	h.Write([]byte(key))
	start := h.Sum64() % n
	for i := uint64(0); i < n && i < maxPoolPrefix; i++ {
		a := p.nth((start + i) % n)
		if !p.exclude[a] && !held(a) {
			return a, true
		}
	}
	return netip.Addr{}, false
}
