package rptest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// handedOut holds the ports FreePort returned in this process. A port handed out is
// bound only when its server starts, seconds later for an agent's nginx, and until then
// the check below finds it free: fifty agents started in batches were given the same
// port twice in about one fleet benchmark of ten.
var handedOut sync.Map

// lowestPort is where the search for a free port begins: above the well-known and most
// registered services' ports that a developer's machine may run.
const lowestPort = 10000

// FreePort returns a loopback port that was free a moment ago, for a server that a test
// starts in another process. It is picked at random below the kernel's ephemeral range:
// a port from listening on :0 comes from that range, so a closed one was soon taken
// again by one of the thousands of outgoing connections that load tests open, and the
// server then failed to bind.
func FreePort(tb testing.TB) int {
	tb.Helper()
	high := ephemeralLow()
	for range 200 {
		p := lowestPort + rand.IntN(high-lowestPort)
		if _, taken := handedOut.LoadOrStore(p, true); taken {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			l.Close()
			return p
		}
	}
	tb.Fatalf("no free loopback port in %d-%d after 200 tries", lowestPort, high-1)
	return 0
}

// FreeAddr returns a loopback host:port that was free a moment ago (see FreePort).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(tb))
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's default 32768
// when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > lowestPort+1000 {
				return n
			}
		}
	}
	return 32768
}
