package openresty

import (
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// startTitled starts a process whose command line reads title, as nginx retitles its
// workers.
func startTitled(t *testing.T, title string) int {
	t.Helper()
	cmd := &exec.Cmd{Path: "/bin/sleep", Args: []string{title, "30"}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func TestAcceptingWorkersLeavesOutThoseShuttingDown(t *testing.T) {
	accepting := startTitled(t, "nginx: worker process")
	closing := startTitled(t, "nginx: worker process is shutting down")
	other := startTitled(t, "nginx: cache manager process")
	gone := exec.Command("/bin/true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pids := map[int]bool{accepting: true, closing: true, other: true, gone.Process.Pid: true}
	if diff := cmp.Diff([]int{accepting}, acceptingWorkers(pids)); diff != "" {
		t.Fatalf("acceptingWorkers (-want +got):\n%s", diff)
	}
}
