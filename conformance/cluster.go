package conformance

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// nodeName is kwok's node, the only one.
const nodeName = "kwok-node"

// Cluster is the suite's cluster: the API server with Gateway API's CRDs,
// kube-controller-manager, kube-scheduler, kwok's node, and the harness's Pod runner.
type Cluster struct {
	*kubetest.Cluster
	// Kubeconfig reaches the API server as its administrator.
	Kubeconfig string
	// PodCIDR is where the Pods' IPs come from; the host reaches them over a bridge.
	PodCIDR netip.Prefix

	dir      string
	net      *podNetwork
	pods     *podRunner
	logs     *logServer
	programs []*proc
}

// StartCluster starts the cluster for one test, with the CRDs of Gateway API's channel
// (kubetest.ChannelStandard or ChannelExperimental), and stops all of it, Pods' programs
// and network namespaces included, when the test ends. A missing program fails the test
// with what to run.
func StartCluster(tb testing.TB, channel string) *Cluster {
	tb.Helper()
	bins := map[string]string{}
	for _, name := range []string{"kube-controller-manager", "kube-scheduler", "kwok"} {
		path, err := kubetest.Bin(name)
		if err != nil {
			tb.Fatalf("conformance: %v", err)
		}
		bins[name] = path
	}
	echo, err := echoBasic()
	if err != nil {
		tb.Fatalf("conformance: %v", err)
	}
	kc := kubetest.StartGatewayAPIT(tb)
	if channel == kubetest.ChannelExperimental {
		kc = kubetest.StartGatewayAPIExperimentalT(tb)
	}
	c := &Cluster{Cluster: kc, Kubeconfig: kc.Kubeconfig(tb), dir: logDir(tb)}
	tb.Cleanup(func() { c.stop(tb) })
	if c.net, err = newPodNetwork(); err != nil {
		tb.Fatalf("conformance: %v", err)
	}
	c.PodCIDR = c.net.podCIDR
	saKey, err := kc.ServiceAccountSigningKey()
	if err != nil {
		tb.Fatalf("conformance: %v", err)
	}
	c.run(tb, func() (*proc, error) {
		return startControllerManager(bins["kube-controller-manager"], c.dir, c.Kubeconfig, saKey)
	})
	c.run(tb, func() (*proc, error) { return startScheduler(bins["kube-scheduler"], c.dir, c.Kubeconfig) })
	ctx := context.Background()
	if _, err := kc.Client.CoreV1().Nodes().Create(ctx, kwokNode(nodeName, c.PodCIDR.String()), metav1.CreateOptions{}); err != nil {
		tb.Fatalf("conformance: create node: %v", err)
	}
	c.run(tb, func() (*proc, error) {
		return startKwok(bins["kwok"], c.dir, c.Kubeconfig, nodeName, c.net.gateway.String(), c.PodCIDR.String())
	})
	if c.pods, err = startPodRunner(kc.Client, nodeName, c.net, echo, c.dir); err != nil {
		tb.Fatalf("conformance: start the Pod runner: %v", err)
	}
	if c.logs, err = startLogServer(c.net.gateway.AsSlice(), c.pods.logOf); err != nil {
		tb.Fatalf("conformance: %v", err)
	}
	c.waitNodeReady(tb, 2*time.Minute)
	return c
}

// logsEnv names a directory to keep the programs' logs and the Pods' files in, for a look
// after the run; a temporary directory holds them otherwise.
const logsEnv = "RESTYPLANE_CONFORMANCE_LOGS"

// logDir returns a fresh directory for one cluster's logs.
func logDir(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(logsEnv)
	if base == "" {
		return tb.TempDir()
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		tb.Fatalf("conformance: %s: %v", logsEnv, err)
	}
	dir, err := os.MkdirTemp(base, "cluster-")
	if err != nil {
		tb.Fatalf("conformance: %s: %v", logsEnv, err)
	}
	tb.Logf("conformance: the cluster's logs are in %s", dir)
	return dir
}

// run starts one of the cluster's programs.
func (c *Cluster) run(tb testing.TB, start func() (*proc, error)) {
	tb.Helper()
	p, err := start()
	if err != nil {
		tb.Fatalf("conformance: %v", err)
	}
	c.programs = append(c.programs, p)
}

// waitNodeReady waits until kwok has made the node Ready.
func (c *Cluster) waitNodeReady(tb testing.TB, within time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		n, err := c.Client.CoreV1().Nodes().Get(context.Background(), nodeName, metav1.GetOptions{})
		if err == nil {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					return
				}
			}
		}
		if err := c.Alive(); err != nil || time.Now().After(deadline) {
			tb.Fatalf("conformance: node %s not Ready within %v (%v)", nodeName, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Alive says which of the cluster's programs has exited, if any has.
func (c *Cluster) Alive() error {
	var dead []string
	for _, p := range c.programs {
		if done, err := p.exited(); done {
			dead = append(dead, fmt.Sprintf("%s exited (%v): %s", p.name, err, p.tail(1500)))
		}
	}
	if len(dead) > 0 {
		return fmt.Errorf("%s", strings.Join(dead, "\n"))
	}
	return nil
}
