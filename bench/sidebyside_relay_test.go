package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// relaySocketEnv, set to an admin socket, makes the benchmark's own binary the relay.
const relaySocketEnv = "RESTYPLANE_BENCH_RELAY_SOCKET"

// sideRelayHost is the route the relay moves on restyplane's nginx.
const sideRelayHost = "relay.side.test"

// relaySystem is the least any control process in front of the bare mechanism costs: a
// Go process of its own (one core, as restyplane serve beside nginx) whose HTTP handler
// decodes the endpoints of a PUT and sends the bare mechanism's push through the same
// admin client, with no token, no validation, no history and no apply record. Between the
// bare mechanism and it lies the crossing into a second process on cores that the load
// keeps busy; between it and restyplane, restyplane's own work.
type relaySystem struct {
	url    string
	proxy  string
	client *http.Client
}

func (r *relaySystem) label() string {
	return "a minimal control process (HTTP PUT to a Go process that pushes; no history)"
}
func (r *relaySystem) addr() string { return r.proxy }
func (r *relaySystem) host() string { return sideRelayHost }

func (r *relaySystem) switchTo(u *upstream) error {
	body, err := json.Marshal(u.endpoints())
	if err != nil {
		return err
	}
	req, err := http.NewRequest("PUT", r.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		return fmt.Errorf("relay answered %d: %s", resp.StatusCode, b.String())
	}
	return nil
}

// startRelay runs the relay as a child process on the admin socket of restyplane's nginx,
// which routes sideRelayHost (on proxy) to backend "relay".
func startRelay(tb testing.TB, socket, proxy string) *relaySystem {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relaySocketEnv+"="+socket, "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the relay: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		tb.Fatalf("the relay said no address: %v", err)
	}
	return &relaySystem{url: "http://" + strings.TrimSpace(addr) + "/", proxy: proxy,
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// runRelay is the relay's process: it prints its address and serves until killed.
func runRelay(socket string) {
	admin := nginx.NewAdminClient(socket)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	var mu sync.Mutex
	version := int64(1 << 41) // far above any revision and the bare system's versions
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var eps []api.Endpoint
		if err := json.NewDecoder(r.Body).Decode(&eps); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		mu.Lock()
		version++
		skipped, err := admin.PushBackends(ctx, version, []api.Backend{{Name: "relay", Endpoints: eps}}, nil, false)
		mu.Unlock()
		if err == nil && len(skipped) > 0 {
			err = fmt.Errorf("skipped %v", skipped)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(1)
}
