package conformance

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwconformance "sigs.k8s.io/gateway-api/conformance"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/kubernetes"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestHarness brings the cluster up with the suite's base manifests, applied by the
// suite's own code, and checks what the suite relies on from it: every Deployment's Pods
// Ready, each echo Pod answering as itself on its own IP (HTTP, gRPC, TCP, and HTTPS with
// the certificate of its Secret volume), EndpointSlices listing exactly the Ready Pods'
// IPs, the requests in the Pods' logs read through the API server (as the mirror tests
// read them), a deleted Pod's program gone and its replacement answering; and, once the test
// is over, nothing left running and no network namespace left.
func TestHarness(t *testing.T) {
	var pids []int
	t.Cleanup(func() { nothingLeft(t, pids) }) // runs last, after the cluster's own cleanup
	c := StartCluster(t, kubetest.ChannelStandard)
	cl, _, err := c.SuiteClient()
	if err != nil {
		t.Fatal(err)
	}
	applyBase(t, cl)
	namespaces := []string{suite.InfrastructureNamespace, suite.AppBackendNamespace, suite.WebBackendNamespace}
	deploymentsReady(t, c, namespaces, 3*time.Minute)
	asked := metav1.Now()
	for _, ns := range namespaces {
		podsAnswer(t, c, ns)
		slicesMatchPods(t, c, ns)
	}
	podLogsShow(t, c, suite.InfrastructureNamespace, "infra-backend-v1", asked)
	replacedPodAnswers(t, c, suite.InfrastructureNamespace, "infra-backend-v1")
	if err := c.Alive(); err != nil {
		t.Error(err)
	}
	pids = c.PIDs()
}

// applyBase applies base/manifests.yaml with the suite's Applier, and the Secrets and
// ConfigMap its TLS backends mount, made by the suite's helpers as its Setup makes them.
func applyBase(t *testing.T, cl client.Client) {
	t.Helper()
	timeouts := config.DefaultTimeoutConfig()
	a := kubernetes.Applier{ManifestFS: []fs.FS{&gwconformance.Manifests}, GatewayClass: "restyplane"}
	a.MustApplyWithCleanup(t, cl, timeouts, "base/manifests.yaml", false)
	infra, app := suite.InfrastructureNamespace, suite.AppBackendNamespace
	caMap, ca, caKey := kubernetes.MustCreateCACertConfigMap(t, infra, "tls-checks-ca-certificate")
	objs := []client.Object{caMap,
		kubernetes.MustCreateCASignedCertSecret(t, infra, "tls-checks-certificate", []string{"abc.example.com"}, ca, caKey),
		kubernetes.MustCreateCASignedCertSecret(t, infra, "tls-passthrough-checks-certificate", []string{"abc.example.com"}, ca, caKey),
		kubernetes.MustCreateCASignedCertSecret(t, app, "tls-passthrough-checks-certificate", []string{"abc.example.com"}, ca, caKey)}
	a.MustApplyObjectsWithCleanup(t, cl, timeouts, objs, false)
}

// nothingLeft checks that the programs are gone and that no network namespace or link of
// this test process is left.
func nothingLeft(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("process %d still runs after the test", pid)
		}
	}
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	mine := netnsPrefix + strconv.Itoa(os.Getpid()) + "-"
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, mine) {
			t.Errorf("network namespace left after the test: %s", line)
		}
	}
	out, err = exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Fatalf("ip link show: %v", err)
	}
	if link := linkPrefix + strconv.Itoa(os.Getpid()); strings.Contains(string(out), ": "+link) {
		t.Errorf("links %s* left after the test:\n%s", link, out)
	}
}

// deploymentsReady waits until every Deployment of the namespaces has all its replicas
// Ready.
func deploymentsReady(t *testing.T, c *Cluster, namespaces []string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var waiting []string
		for _, ns := range namespaces {
			ds, err := c.Client.AppsV1().Deployments(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds.Items {
				if want := *d.Spec.Replicas; d.Status.ReadyReplicas != want {
					waiting = append(waiting, ns+"/"+d.Name+" "+strconv.Itoa(int(d.Status.ReadyReplicas))+"/"+strconv.Itoa(int(want)))
				}
			}
		}
		if len(waiting) == 0 {
			return
		}
		if err := c.Alive(); err != nil || time.Now().After(deadline) {
			t.Fatalf("Deployments not Ready within %v: %v (%v)", within, waiting, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// podLogsShow checks that the log of each Pod of the Deployment, read through the API
// server since the time asked, shows the request podsAnswer made, and that a log since a
// later time does not.
func podLogsShow(t *testing.T, c *Cluster, ns, deployment string, asked metav1.Time) {
	t.Helper()
	const line = "Echoing back request made to /whoami to client"
	later := metav1.NewTime(time.Now().Add(2 * time.Second))
	for _, p := range podsOf(t, c, ns) {
		if p.Labels["app"] != deployment {
			continue
		}
		for _, tc := range []struct {
			since metav1.Time
			want  bool
		}{{asked, true}, {later, false}} {
			b, err := c.Client.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: deployment, SinceTime: &tc.since}).
				DoRaw(context.Background())
			if err != nil {
				t.Fatalf("log of Pod %s/%s: %v", ns, p.Name, err)
			}
			if got := strings.Contains(string(b), line); got != tc.want {
				t.Errorf("log of Pod %s/%s since %v has %q: %v, want %v; log:\n%s", ns, p.Name, tc.since, line, got, tc.want, b)
			}
		}
	}
}

// podsOf lists the namespace's Pods.
func podsOf(t *testing.T, c *Cluster, ns string) []corev1.Pod {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}
