package web_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPagesLoadWhileTheMachinesNetworkChanges: while an interface comes and goes in the
// machine's network namespace, as other packages' tests make them beside these, every
// reload of the UI loads. Chromium, in the machine's namespace, aborted the requests in
// flight at each change (net::ERR_NETWORK_CHANGED) and the page stayed "Loading…".
func TestPagesLoadWhileTheMachinesNetworkChanges(t *testing.T) {
	rp := startRestyplane(t)
	b := newBrowser(t, rp.API, 1280, 900)
	b.waitVisible(tid("signin-token"))

	stop := make(chan struct{})
	done := make(chan struct{})
	dummy := fmt.Sprintf("rpwchg%d", os.Getpid()%100000)
	go func() {
		defer close(done)
		defer exec.Command("ip", "link", "del", dummy).Run()
		for i := 0; i < 1000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// An interface with an address, then none: each step is a netlink event.
			for _, args := range [][]string{{"link", "add", dummy, "type", "veth", "peer", "name", dummy + "p"},
				{"addr", "add", fmt.Sprintf("10.254.%d.1/32", i%250), "dev", dummy}, {"link", "set", dummy, "up"},
				{"link", "del", dummy}} {
				if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
					t.Errorf("ip %v: %v: %s", args, err, out)
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	defer func() { close(stop); <-done }()
	for i := 0; i < 15; i++ {
		b.do(fmt.Sprintf("reload %d", i), chromedp.Reload())
		b.waitVisible(tid("signin-token"))
	}
}
