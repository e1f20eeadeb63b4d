package nginx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// workerPIDs lists the children of the master, read from /proc.
func workerPIDs(t *testing.T, master int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid, ...
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(master) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

func TestEndpointChangeMovesTheNextRequestWithoutReload(t *testing.T) {
	one, two := startUpstream(t, "one", 0), startUpstream(t, "two", 0)
	cfg := config([]api.Backend{backend("web", one)}, server("shop", "shop.test", "/", "web"))
	in := startNginx(t, cfg)
	addr := proxyAddr(in)
	push(t, in, 2, backend("web", one))
	if got := get(t, addr, "shop.test", "/").upstream; got != "one" {
		t.Fatalf("upstream = %q, want one", got)
	}
	master, workers := in.PID(), workerPIDs(t, in.PID())
	if len(workers) != 2 {
		t.Fatalf("workers = %v, want 2", workers)
	}

	push(t, in, 3, backend("web", two))
	// The very next request, on every worker: each request checks the version.
	for i := 0; i < 10; i++ {
		if got := get(t, addr, "shop.test", "/").upstream; got != "two" {
			t.Fatalf("request %d after the push went to %q, want two", i, got)
		}
	}
	if got := in.PID(); got != master {
		t.Fatalf("master pid = %d, want %d (no restart)", got, master)
	}
	if diff := cmp.Diff(workers, workerPIDs(t, master)); diff != "" {
		t.Fatalf("worker pids changed (a reload happened) (-before +after):\n%s", diff)
	}
}

func TestRoundRobinFollowsWeights(t *testing.T) {
	a, b := startUpstream(t, "a", 0), startUpstream(t, "b", 0)
	web := backend("web", a, b)
	web.Endpoints[1].Weight = 3
	in := startNginx(t, config([]api.Backend{web}, server("shop", "shop.test", "/", "web")))
	push(t, in, 2, web)
	counts := map[string]int{}
	for i := 0; i < 80; i++ {
		counts[get(t, proxyAddr(in), "shop.test", "/").upstream]++
	}
	// Each of the two workers runs its own smooth round robin, so each sends exactly one
	// in four of its requests to a; the total is within a few of 20.
	if counts["a"] < 16 || counts["a"] > 24 {
		t.Fatalf("counts = %v, want a ≈ 20 of 80 (weights 1:3)", counts)
	}
}

func TestCanarySplitsByWeightHeaderAndCookie(t *testing.T) {
	stable, canary := startUpstream(t, "stable", 0), startUpstream(t, "canary", 0)
	main := backend("main", stable)
	main.Canary = &api.Canary{Backend: "main-v2", Weight: 30, Header: "X-Canary", Cookie: "canary"}
	v2 := backend("main-v2", canary)
	in := startNginx(t, config([]api.Backend{main, v2}, server("shop", "shop.test", "/", "main")))
	push(t, in, 2, main, v2)
	addr := proxyAddr(in)

	const n = 400
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		counts[get(t, addr, "shop.test", "/").upstream]++
	}
	// 30% of 400 is 120, with a standard deviation of about 9: allow four and a bit.
	if c := counts["canary"]; c < 80 || c > 160 || counts["stable"]+c != n {
		t.Fatalf("counts = %v, want about 120 of %d on the canary", counts, n)
	}
	for i := 0; i < 10; i++ {
		if got := get(t, addr, "shop.test", "/", "X-Canary", "always").upstream; got != "canary" {
			t.Fatalf("X-Canary: always went to %q", got)
		}
		if got := get(t, addr, "shop.test", "/", "X-Canary", "never").upstream; got != "stable" {
			t.Fatalf("X-Canary: never went to %q", got)
		}
		if got := get(t, addr, "shop.test", "/", "Cookie", "canary=always").upstream; got != "canary" {
			t.Fatalf("cookie canary=always went to %q", got)
		}
	}

	// A header value, when configured, is the only value that selects the canary.
	main.Canary = &api.Canary{Backend: "main-v2", Header: "X-Canary", HeaderValue: "blue"}
	push(t, in, 3, main)
	for i := 0; i < 10; i++ {
		if got := get(t, addr, "shop.test", "/", "X-Canary", "blue").upstream; got != "canary" {
			t.Fatalf("X-Canary: blue went to %q", got)
		}
		if got := get(t, addr, "shop.test", "/", "X-Canary", "always").upstream; got != "stable" {
			t.Fatalf("X-Canary: always (not the configured value) went to %q", got)
		}
	}
}

func TestConsistentHashKeepsAKeyOnOnePeer(t *testing.T) {
	ups := []*upstream{startUpstream(t, "a", 0), startUpstream(t, "b", 0), startUpstream(t, "c", 0)}
	web := backend("web", ups...)
	web.LoadBalance, web.HashBy = api.CHash, "$http_x_user"
	in := startNginx(t, config([]api.Backend{web}, server("shop", "shop.test", "/", "web")))
	push(t, in, 2, web)
	used := map[string]bool{}
	for k := 0; k < 12; k++ {
		user := fmt.Sprintf("user-%d", k)
		first := get(t, proxyAddr(in), "shop.test", "/", "X-User", user).upstream
		used[first] = true
		for i := 0; i < 8; i++ {
			if got := get(t, proxyAddr(in), "shop.test", "/", "X-User", user).upstream; got != first {
				t.Fatalf("%s went to %s, then to %s", user, first, got)
			}
		}
	}
	if len(used) < 2 {
		t.Fatalf("12 keys all went to %v; the ring does not spread", used)
	}
}

func TestEWMAPrefersTheFastUpstream(t *testing.T) {
	// The slow one is slower than any stall a loaded machine gives the fast one: peak EWMA
	// takes a slow answer at once, so a fast upstream that once answered in 100 ms would
	// look slower than one that always takes 80 ms.
	fast, slow := startUpstream(t, "fast", 0), startUpstream(t, "slow", 250*time.Millisecond)
	web := backend("web", fast, slow)
	web.LoadBalance = api.EWMA
	in := startNginx(t, config([]api.Backend{web}, server("shop", "shop.test", "/", "web")))
	push(t, in, 2, web)
	counts := map[string]int{}
	for i := 0; i < 60; i++ {
		counts[get(t, proxyAddr(in), "shop.test", "/").upstream]++
	}
	// Each worker tries the slow one a few times before it learns, more of them when a
	// loaded machine delays the fast one too (52 of 60 in one such run); a balancer that
	// did not prefer it would give about 30.
	if counts["fast"] < 45 {
		t.Fatalf("counts = %v, want at least 45 of 60 on fast", counts)
	}
}

func TestRetriesMoveToAnotherPeer(t *testing.T) {
	live := startUpstream(t, "live", 0)
	dead := api.Endpoint{Address: "127.0.0.1", Port: freePort(t), Weight: 1} // nothing listens
	web := api.Backend{Name: "web", LoadBalance: api.RoundRobin, Endpoints: []api.Endpoint{dead, live.endpoint()}, Retries: 1}
	in := startNginx(t, config([]api.Backend{web}, server("shop", "shop.test", "/", "web")))
	push(t, in, 2, web)
	for i := 0; i < 10; i++ {
		if got := get(t, proxyAddr(in), "shop.test", "/"); got.status != 200 || got.upstream != "live" {
			t.Fatalf("request %d = %d from %q, want 200 from live after a retry", i, got.status, got.upstream)
		}
	}
	web.Retries = 0
	push(t, in, 3, web)
	failed := 0
	for i := 0; i < 10; i++ {
		if get(t, proxyAddr(in), "shop.test", "/").status == 502 {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("without retries no request failed, yet one peer is dead")
	}
}

func TestAffinityCookiePinsAClient(t *testing.T) {
	ups := []*upstream{startUpstream(t, "a", 0), startUpstream(t, "b", 0), startUpstream(t, "c", 0)}
	web := backend("web", ups...)
	web.Affinity = &api.Affinity{Cookie: "route"}
	in := startNginx(t, config([]api.Backend{web}, server("shop", "shop.test", "/", "web")))
	push(t, in, 2, web)
	first := get(t, proxyAddr(in), "shop.test", "/")
	cookie := first.header.Get("Set-Cookie")
	if !strings.HasPrefix(cookie, "route=") {
		t.Fatalf("Set-Cookie = %q, want the route cookie", cookie)
	}
	value := strings.SplitN(cookie, ";", 2)[0]
	for i := 0; i < 10; i++ {
		got := get(t, proxyAddr(in), "shop.test", "/", "Cookie", value)
		if got.upstream != first.upstream {
			t.Fatalf("with %s request %d went to %q, want %q", value, i, got.upstream, first.upstream)
		}
		if c := got.header.Get("Set-Cookie"); c != "" {
			t.Fatalf("a client with the right cookie got Set-Cookie %q", c)
		}
	}
}
