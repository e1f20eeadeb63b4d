package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// upstreamPort is the port every upstream in a network namespace listens on: each has an
// address of its own, and an EndpointSlice has one port for all its endpoints.
const upstreamPort = 8080

// upstreamEnv tells a re-executed test binary to serve as an upstream instead of testing:
// "name=address:port".
const upstreamEnv = "RESTYPLANE_E2E_UPSTREAM"

// netnsPrefix starts the name of every namespace these tests create, followed by the pid
// of the test process, so that a namespace left by a killed run can be recognised.
const netnsPrefix = "rp-e2e-"

var netnsSeq atomic.Int64

// netns is a network namespace that the test run creates, joined to the host by a veth
// pair. The kube-apiserver refuses EndpointSlice addresses in 127.0.0.0/8, so the upstreams
// of the Kubernetes tests listen inside the namespace, on addresses of its end of the pair,
// and nginx on the host reaches them over the veth like it would reach pods.
type netns struct {
	t      testing.TB
	name   string
	hostIf string
	nsIf   string
	subnet string // "10.213.X."
	exe    string

	mu   sync.Mutex
	next int // last octet of the next upstream's address
}

// newNetns creates a namespace for the test and deletes it, with everything running in
// it, when the test ends. It fails with what is missing when the machine does not allow it.
func newNetns(t testing.TB) *netns {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("iproute2's ip is missing: run `make test` (hack/install.sh installs iproute2); the Kubernetes tests run their upstreams in a network namespace")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary: %v", err)
	}
	removeStaleNetns(t)
	seq := netnsSeq.Add(1)
	n := &netns{t: t, exe: exe, next: 2,
		name:   fmt.Sprintf("%s%d-%d", netnsPrefix, os.Getpid(), seq),
		hostIf: fmt.Sprintf("rp%ds%dh", os.Getpid(), seq),
		nsIf:   fmt.Sprintf("rp%ds%dn", os.Getpid(), seq),
	}
	n.subnet = freeSubnet(t)
	if out, err := exec.Command("ip", "netns", "add", n.name).CombinedOutput(); err != nil {
		t.Fatalf("cannot create a network namespace (ip netns add %s: %v: %s).\n"+
			"The Kubernetes end-to-end tests need CAP_SYS_ADMIN and CAP_NET_ADMIN (root, or a privileged container): "+
			"the kube-apiserver refuses loopback EndpointSlice addresses, so their upstreams listen in a namespace of their own",
			n.name, err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(n.remove)
	n.ip("link", "add", n.hostIf, "type", "veth", "peer", "name", n.nsIf, "netns", n.name)
	n.ip("addr", "add", n.subnet+"1/24", "dev", n.hostIf)
	n.ip("link", "set", n.hostIf, "up")
	n.ip("-n", n.name, "link", "set", "lo", "up")
	n.ip("-n", n.name, "link", "set", n.nsIf, "up")
	return n
}

// ip runs one ip command and fails the test if it fails.
func (n *netns) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
}

// remove deletes the namespace; the veth pair goes with it. Upstreams registered their own
// cleanups later, so they are gone by now.
func (n *netns) remove() {
	if out, err := exec.Command("ip", "netns", "del", n.name).CombinedOutput(); err != nil {
		n.t.Errorf("ip netns del %s: %v: %s", n.name, err, strings.TrimSpace(string(out)))
	}
	// Deleting the namespace destroys its end of the pair and with it the host's; this only
	// catches a pair whose namespace end never arrived.
	_ = exec.Command("ip", "link", "del", n.hostIf).Run()
}

// removeStaleNetns deletes the namespaces of test processes that no longer run (a run
// killed before its cleanups), so that their subnets are free again.
func removeStaleNetns(t testing.TB) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, netnsPrefix)
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + pidText); err == nil {
			continue
		}
		if err := exec.Command("ip", "netns", "del", name).Run(); err == nil {
			t.Logf("removed network namespace %s of a test run that is gone", name)
		}
	}
}

// freeSubnet picks a /24 in 10.213.0.0/16 that no interface of the host uses, starting
// from one derived from the pid so that concurrent test processes rarely meet.
func freeSubnet(t testing.TB) string {
	t.Helper()
	used := map[string]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("list the host's addresses: %v", err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			if ip4 := ipn.IP.To4(); ip4 != nil && ip4[0] == 10 && ip4[1] == 213 {
				used[strconv.Itoa(int(ip4[2]))] = true
			}
		}
	}
	start := os.Getpid() % 256
	for i := 0; i < 256; i++ {
		x := strconv.Itoa((start + i) % 256)
		if !used[x] {
			return "10.213." + x + "."
		}
	}
	t.Fatal("no free /24 left in 10.213.0.0/16 for a test network namespace")
	return ""
}

// nsUpstream is an HTTP server running in a network namespace, in a process of its own,
// that answers every request with its name and the path.
type nsUpstream struct {
	name string
	addr string
	cmd  *exec.Cmd
}

// upstream starts an upstream on the namespace's next address and stops it when the test
// ends.
func (n *netns) upstream(t testing.TB, name string) *nsUpstream {
	t.Helper()
	n.mu.Lock()
	if n.next > 254 {
		n.mu.Unlock()
		t.Fatalf("network namespace %s has no address left", n.name)
	}
	u := &nsUpstream{name: name, addr: n.subnet + strconv.Itoa(n.next)}
	n.next++
	n.mu.Unlock()
	n.ip("-n", n.name, "addr", "add", u.addr+"/24", "dev", n.nsIf)

	// ip netns exec enters the namespace and execs the test binary, which serves instead of
	// testing. Its stdin is a pipe from this process: when this process dies, however it
	// dies, the upstream reads EOF and exits.
	u.cmd = exec.Command("ip", "netns", "exec", n.name, n.exe,
		"-test.run=^TestUpstreamHelperProcess$", "-test.timeout=0", "-test.count=1")
	u.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s=%s:%d", upstreamEnv, name, u.addr, upstreamPort))
	stdin, err := u.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := u.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	u.cmd.Stderr = &stderr
	if err := u.cmd.Start(); err != nil {
		t.Fatalf("start upstream %s: %v", name, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		u.cmd.Process.Kill()
		u.cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		if line != "listening" {
			u.cmd.Process.Kill()
			u.cmd.Wait()
			t.Fatalf("upstream %s on %s:%d did not start: %q %s", name, u.addr, upstreamPort, line, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("upstream %s on %s:%d not listening after 10s: %s", name, u.addr, upstreamPort, stderr.String())
	}
	return u
}

// TestUpstreamHelperProcess is not a test: it is the upstream that newNetns's upstream
// runs inside a namespace, by re-executing the test binary. Run normally, it returns.
func TestUpstreamHelperProcess(t *testing.T) {
	spec := os.Getenv(upstreamEnv)
	if spec == "" {
		return
	}
	name, addr, _ := strings.Cut(spec, "=")
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "listen on %s: %v\n", addr, err)
		os.Exit(2)
	}
	fmt.Println("listening")
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" { // a WebSocket echo (policies)
			wsEcho.ServeHTTP(w, r)
			return
		}
		w.Header().Set("X-Upstream", name)
		// Failing endpoints, error backends, 404s and bodies (policies).
		if policyAnswer(name, w, r) {
			return
		}
		// The X-User an external auth passed (policies), when there is one.
		if u := r.Header.Get("X-User"); u != "" {
			fmt.Fprintf(w, "%s %s user=%q\n", name, r.URL.Path, u)
			return
		}
		// The client certificate headers, on a host that verifies clients.
		if r.Header.Get("ssl-client-verify") != "" {
			fmt.Fprint(w, certEchoBody(name, r))
			return
		}
		fmt.Fprintf(w, "%s %s\n", name, r.URL.Path)
	}))
	fmt.Fprintf(os.Stderr, "serve: %v\n", err)
	os.Exit(2)
}
