package conformance

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"strings"
)

// gatewayPool chooses the Gateways' addresses: a /24 of 127.214.0.0/16 other than the
// proxy's, where no socket listens (so that no other run's nginx is there), of which the
// lower half is the pool and the address .200 is given only on request.
func gatewayPool(proxy string) (Addresses, error) {
	p := netip.MustParseAddr(proxy).As4()
	busy, err := listeningIn127()
	if err != nil {
		return Addresses{}, err
	}
	for i := 1; i < 250; i++ {
		x := (int(p[2]) + i*37) % 250
		if x == int(p[2]) || busy[x] {
			continue
		}
		return Addresses{Proxy: proxy, Pool: fmt.Sprintf("127.214.%d.0/25", x),
			Requested: fmt.Sprintf("127.214.%d.200", x), Unusable: fmt.Sprintf("127.214.%d.201", x)}, nil
	}
	return Addresses{}, fmt.Errorf("no /24 of 127.214.0.0/16 without a listening socket")
}

// listeningIn127 lists the third octets of the 127.214.0.0/16 addresses a TCP socket
// listens on, from /proc/net/tcp.
func listeningIn127() (map[int]bool, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return nil, fmt.Errorf("the listening sockets: %w", err)
	}
	defer f.Close()
	out := map[int]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// local_address is hex of the address in host order (little-endian) and the port;
		// state 0A is LISTEN.
		if len(fields) < 4 || fields[3] != "0A" || len(fields[1]) < 8 {
			continue
		}
		var a, b, c, d int
		if _, err := fmt.Sscanf(fields[1][:8], "%02x%02x%02x%02x", &d, &c, &b, &a); err != nil {
			continue
		}
		if a == 127 && b == 214 {
			out[c] = true
		}
	}
	return out, sc.Err()
}
