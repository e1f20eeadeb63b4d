package nginx_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// A confirmed reload means that every new connection meets the new conf: the workers of
// the previous conf must have stopped accepting, which nginx's master asks of them only
// after it started the new workers and paused.
func TestReloadIsConfirmedWhenOldWorkersStopAccepting(t *testing.T) {
	a := startUpstream(t, "a", 0)
	backends := []api.Backend{backend("ba", a)}
	in := startNginx(t, config(backends, server("shop", "shop.test", "/p1", "ba")))
	push(t, in, 2, backends...)
	addr, master := proxyAddr(in), in.PID()
	for gen := 2; gen <= 6; gen++ {
		path := fmt.Sprintf("/p%d", gen)
		conf, err := in.Render(config(backends, server("shop", "shop.test", path, "ba")), strconv.Itoa(gen))
		if err != nil {
			t.Fatal(err)
		}
		before := workerPIDs(t, master)
		if err := in.Reload(ctx(t), conf, nil, strconv.Itoa(gen)); err != nil {
			t.Fatalf("reload to generation %d: %v", gen, err)
		}
		for _, pid := range before {
			title, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if err == nil && bytes.Contains(title, []byte("worker process")) && !bytes.Contains(title, []byte("shutting down")) {
				t.Fatalf("generation %d confirmed while worker %d of the previous conf still accepts (%q)", gen, pid, bytes.TrimRight(title, "\x00"))
			}
		}
		if got := get(t, addr, "shop.test", path); got.status != 200 || got.upstream != "a" {
			t.Fatalf("generation %d: %s = %d from %q, want 200 from a", gen, path, got.status, got.upstream)
		}
	}
}
