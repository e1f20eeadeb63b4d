package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// probeEnv names the admin socket paths (comma-separated) that the test binary, run as
// another user, tries to connect to (see probeSocket).
const probeEnv = "E2E_PROBE_ADMIN_SOCKET"

// probeSocket connects to each of paths in a tight loop until its stdin closes. It
// prints "ready" after its first round, and at the end how each attempt failed; it exits
// 3 at the first connection that succeeds, 4 if it ran out of its bounds.
func probeSocket(paths []string) int {
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	counts := map[string]int{}
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < 20_000_000 && time.Now().Before(deadline); i++ {
		select {
		case <-stop:
			fmt.Println(counts)
			return 0
		default:
		}
		for _, p := range paths {
			c, err := net.Dial("unix", p)
			if err == nil {
				c.Close()
				fmt.Printf("connected to %s after %d rounds\n", p, i)
				return 3
			}
			var errno syscall.Errno
			if errors.As(err, &errno) {
				counts[errno.Error()]++
			} else {
				counts[err.Error()]++
			}
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
	fmt.Println("out of bounds", counts)
	return 4
}

// TestAdminSocketNeverReachableByAnotherUser: while restyplane (root, with workers as
// www-data: nginx's user directive takes the group of the same name, which Debian has
// for www-data and not for nobody) starts nginx, a process running as nobody tries to connect to the admin socket
// in a tight loop, and never gets in; the socket's directory is 0700 and the socket 0600.
// The prefix sits in directories anyone may traverse, so that only the socket's own
// directory stands in the way. The probe also tries the socket's old place in the prefix
// root, where nginx made it world-writable until restyplane's first status poll.
func TestAdminSocketNeverReachableByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test runs a probe as another user and nginx workers as nobody: run it as root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("look up user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	www, err := user.Lookup("www-data")
	if err != nil {
		t.Fatalf("look up user www-data: %v", err)
	}
	wwwUID, _ := strconv.Atoi(www.Uid)
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(base, "or")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(base, "probe")
	if err := copyFile(self, probe, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(probe, "-test.run=^$")
	cmd.Env = append(os.Environ(), probeEnv+"="+filepath.Join(prefix, "admin", "admin.sock")+","+filepath.Join(prefix, "admin.sock"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the probe as nobody: %v", err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("probe: %q, want ready", lines.Text())
	}

	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e test",
		Args: []string{"--openresty-prefix", prefix, "--nginx-user", "www-data"}})
	in := &instance{Process: p, t: t}
	a := newUpstream(t, "a", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", a.endpoint(1)))
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", location("/", "web")))
	in.waitSynced()
	in.wantFrom("shop.test", "/", "a")

	stdin.Close()
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("probe as nobody: %v: %s", err, rest)
	}
	t.Logf("the probe's failed attempts: %s", rest)
	if !strings.Contains(fmt.Sprint(rest), "permission denied") {
		t.Fatalf("the probe never met the socket's directory (%s): it did not run while nginx did", rest)
	}

	dir, err := os.Stat(filepath.Join(prefix, "admin"))
	if err != nil || dir.Mode().Perm() != 0o700 || dir.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Fatalf("admin socket directory: %v %v, want 0700 owned by root", dir.Mode(), err)
	}
	sock, err := os.Stat(filepath.Join(prefix, "admin", "admin.sock"))
	if err != nil || sock.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket: %v %v, want 0600", sock.Mode(), err)
	}
	master, workers := nginxOf(prefix + "/")
	if master == 0 || len(workers) == 0 {
		t.Fatalf("nginx of %s: master %d workers %v", prefix, master, workers)
	}
	// A worker that the last reload forked runs as root until its init calls setuid, and
	// keeps the master's title until then (the reload is confirmed by the first new worker
	// that answers, not the last): look at each once it has its own title.
	deadline := time.Now().Add(10 * time.Second)
	for _, w := range workers {
		for !workerTitled(w) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", w)); err != nil {
			continue // gone: it no longer serves
		}
		if !workerTitled(w) {
			t.Fatalf("worker %d has not finished its init in 10 s", w)
		}
		if _, _, wuid := procOwner(w); wuid != wwwUID {
			t.Fatalf("worker %d runs as uid %d, want www-data (%d)", w, wuid, wwwUID)
		}
	}
}

// workerTitled says whether a child of the master has finished its init (nginx titles it
// "worker process" after setuid), or is gone.
func workerTitled(pid int) bool {
	cmd, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err != nil || strings.HasPrefix(string(cmd), "nginx: worker process")
}

func copyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// nginxOf finds the nginx master whose command line names dir and its workers, from
// /proc. A worker keeps the master's title ("nginx: master process ...") from its fork
// until its init is done, so the master is the one whose parent is no such process, and
// every child of the master is a worker, renamed yet or not, except those shutting down
// after a reload, which no longer serve.
func nginxOf(dir string) (master int, workers []int) {
	entries, _ := os.ReadDir("/proc")
	titled := map[int]bool{}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		parent[pid], _, _ = procOwner(pid)
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(string(cmd), "nginx: master process") && strings.Contains(string(cmd), dir) {
			titled[pid] = true
		}
	}
	for pid := range titled {
		if !titled[parent[pid]] {
			master = pid
		}
	}
	for pid, ppid := range parent {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if master != 0 && ppid == master && strings.HasPrefix(string(cmd), "nginx: ") &&
			!strings.Contains(string(cmd), "shutting down") {
			workers = append(workers, pid)
		}
	}
	sort.Ints(workers)
	return master, workers
}

// procOwner returns a process's parent, its real uid and its effective uid.
func procOwner(pid int) (ppid, ruid, euid int) {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "PPid:":
			ppid, _ = strconv.Atoi(f[1])
		case len(f) >= 3 && f[0] == "Uid:":
			ruid, _ = strconv.Atoi(f[1])
			euid, _ = strconv.Atoi(f[2])
		}
	}
	return ppid, ruid, euid
}
