package web_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Chromium runs in a network namespace of the web tests' own. In the machine's, it
// aborted the requests in flight (net::ERR_NETWORK_CHANGED) whenever a network interface
// or address came or went, as other packages' tests running beside these make them (the
// e2e tests' veth pairs), and a page stayed "Loading…". The namespace has only its
// loopback; for each address a browser is sent to, the test process listens on the same
// address inside the namespace and relays to the one outside.
var chromiumNet struct {
	once sync.Once
	name string
	err  error

	mu     sync.Mutex
	relays map[string]bool
}

// browserNetns returns the namespace's name, made on first use and deleted at exit
// (removeBrowserNetns).
func browserNetns() (string, error) {
	chromiumNet.once.Do(func() {
		name := fmt.Sprintf("rp-web-%d", os.Getpid())
		for _, args := range [][]string{{"netns", "add", name}, {"-n", name, "link", "set", "lo", "up"}} {
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				chromiumNet.err = fmt.Errorf("ip %v: %v: %s", args, err, out)
				return
			}
		}
		chromiumNet.name, chromiumNet.relays = name, map[string]bool{}
	})
	return chromiumNet.name, chromiumNet.err
}

// removeBrowserNetns deletes the namespace, if one was made.
func removeBrowserNetns() {
	if chromiumNet.name != "" {
		_ = exec.Command("ip", "netns", "del", chromiumNet.name).Run()
	}
}

// relayIntoNetns makes addr (host:port) inside the namespace reach addr outside it.
func relayIntoNetns(t *testing.T, addr string) {
	t.Helper()
	name, err := browserNetns()
	if err != nil {
		t.Fatalf("Chromium's network namespace: %v", err)
	}
	chromiumNet.mu.Lock()
	defer chromiumNet.mu.Unlock()
	if chromiumNet.relays[addr] {
		return
	}
	l, err := listenIn(name, addr)
	if err != nil {
		t.Fatalf("listen on %s in namespace %s: %v", addr, name, err)
	}
	chromiumNet.relays[addr] = true
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go relay(c, addr)
		}
	}()
}

// listenIn listens on addr in namespace name: a socket belongs to the namespace of the
// thread that made it. The thread is locked and never unlocked, so that the runtime ends
// it with the goroutine instead of running other goroutines in the namespace.
func listenIn(name, addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		ns, err := os.Open("/run/netns/" + name)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns: %w", err)}
			return
		}
		l, err := net.Listen("tcp", addr)
		done <- result{l, err}
	}()
	r := <-done
	return r.l, r.err
}

// relay copies between a connection made in the namespace and a new one to addr outside.
func relay(in net.Conn, addr string) {
	defer in.Close()
	out, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer out.Close()
	go func() {
		_, _ = io.Copy(out, in)
		_ = out.(*net.TCPConn).CloseWrite()
	}()
	_, _ = io.Copy(in, out)
}
