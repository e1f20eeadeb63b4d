package conformance

import (
	"testing"
	"time"
)

// PodIPs returns the IPs of the Pods the harness runs something for, by namespace/name.
func (c *Cluster) PodIPs() map[string]string { return c.pods.running() }

// PIDs returns the process ids of the cluster's programs and of the Pods' programs.
func (c *Cluster) PIDs() []int {
	var pids []int
	for _, p := range c.programs {
		pids = append(pids, p.pid())
	}
	if c.pods != nil {
		for _, p := range c.pods.procs() {
			pids = append(pids, p.pid())
		}
	}
	return pids
}

// stop ends the log endpoint, the Pods' programs and namespaces, then kwok, the scheduler and the
// controller manager (the API server stops after, in kubetest's cleanup), then removes the
// Pod network. The programs' logs are shown when the test failed.
func (c *Cluster) stop(tb testing.TB) {
	if c.logs != nil {
		c.logs.close()
	}
	if c.pods != nil {
		c.pods.stop()
	}
	if tb.Failed() {
		c.showLogs(tb)
	}
	for i := len(c.programs) - 1; i >= 0; i-- {
		c.programs[i].stop(10 * time.Second)
	}
	if c.net != nil {
		if err := c.net.close(); err != nil {
			tb.Errorf("conformance: %v", err)
		}
	}
}

// showLogs logs the end of each program's output and of the Pod runner's log.
func (c *Cluster) showLogs(tb testing.TB) {
	for _, p := range c.programs {
		tb.Logf("--- %s (last lines):\n%s", p.name, p.tail(3000))
	}
	if c.pods != nil {
		tb.Logf("--- Pod runner (last lines):\n%s", (&proc{log: c.pods.logPath}).tail(6000))
	}
}
