package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/benchmd"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"

	"github.com/restyplane/restyplane/internal/rptest"
)

// Sizes of the Kubernetes benchmark.
const (
	benchServices   = 2000
	benchNamespaces = 20
	benchUpstreams  = 4  // each EndpointSlice lists two of them
	benchSample     = 50 // hosts whose answer through the proxy marks "applied"
	benchUpdates    = 100
)

// BenchmarkKubernetes puts 2,000 Services, each with an EndpointSlice of two endpoints and
// an Ingress of one host, into a real kube-apiserver, then starts the restyplane binary on
// it (with its managed nginx) and measures the time from its start to all of them applied
// and answering through the proxy, the time from an EndpointSlice update to live traffic
// over 100 updates, and restyplane's resident memory. Upstreams are real HTTP servers in a
// network namespace, at the addresses the EndpointSlices list.
//
// Run it with `make bench`, which sets RESTYPLANE_BENCH_OUT so that the results are written
// into BENCHMARKS.md. One iteration is the whole scenario; use -benchtime 1x.
func BenchmarkKubernetes(b *testing.B) {
	for i := 0; i < b.N; i++ {
		res := runKubeBench(b)
		b.ReportMetric(res.applied.Seconds(), "start-to-applied-s")
		b.ReportMetric(millis(res.updates.p50), "update-p50-ms")
		b.ReportMetric(millis(res.updates.p99), "update-p99-ms")
		b.ReportMetric(float64(res.rssPeak)/(1<<20), "rss-peak-MiB")
		if out := os.Getenv("RESTYPLANE_BENCH_OUT"); out != "" {
			if err := benchmd.WriteSection(out, "kubernetes", res.markdown()); err != nil {
				b.Fatalf("write %s: %v", out, err)
			}
		}
	}
}

// kubeBenchResult is what one run of the scenario measured.
type kubeBenchResult struct {
	load, loadEnd string // load averages when the run started and after the updates
	code          string
	created       time.Duration // creating the 6,000 objects in the API server
	startup
	allServed  int           // hosts answering through the proxy, of benchServices
	statuses   time.Duration // start to every Ingress's status.loadBalancer set
	updates    percentiles
	reloaded   bool // the nginx master or worker pids changed during the updates
	stages     stages
	rssApplied int64
	rssAfter   int64
	rssPeak    int64
}

func runKubeBench(b *testing.B) *kubeBenchResult {
	b.Helper()
	res := &kubeBenchResult{load: loadAverageNow(), code: codeVersion()}
	rptest.Binary(b) // built before any clock starts
	ns := newNetns(b)
	c := kubetest.StartT(b)
	kubeconfig := c.Kubeconfig(b)
	c.Create(b, kubetest.IngressClass(ingressClass, reconciler.DefaultController, false))
	var ups []*nsUpstream
	for i := 0; i < benchUpstreams; i++ {
		ups = append(ups, ns.upstream(b, fmt.Sprintf("u%d", i)))
	}
	probes := []*nsUpstream{ns.upstream(b, "p0"), ns.upstream(b, "p1")}

	startCreate := time.Now()
	createBenchObjects(b, c, ups)
	res.created = time.Since(startCreate)
	b.Logf("created %d Services, EndpointSlices and Ingresses in %v", benchServices, res.created)

	b.ResetTimer()
	started := time.Now()
	in := start(b, "--kubeconfig", kubeconfig, "--lease-namespace", "default", "--lease-identity", "bench",
		"--ingress-status-address", "127.0.0.1", "--log-level", "warn")
	pid := in.PID()

	res.startup = measureStartup(b, in, started, benchServices, benchHost, func(h int) []*nsUpstream { return benchSliceUpstreams(h, ups) })
	res.rssApplied = procStatusBytes(b, pid, "VmRSS")

	// Every host answers, not only the sample.
	for h := 0; h < benchServices; h++ {
		if code, body := in.get(benchHost(h), "/"); code == 200 && strings.HasPrefix(body, "u") {
			res.allServed++
		}
	}

	// The reporter writes Events and status for every Ingress, rate-limited; the updates
	// are measured once it is done, on a restyplane at rest.
	for {
		l, err := c.Client.NetworkingV1().Ingresses("").List(context.Background(), metav1.ListOptions{})
		done := 0
		if err == nil {
			for _, ing := range l.Items {
				if len(ing.Status.LoadBalancer.Ingress) > 0 {
					done++
				}
			}
		}
		if done == benchServices {
			res.statuses = time.Since(started)
			break
		}
		if time.Now().After(started.Add(10 * time.Minute)) {
			b.Fatalf("%d of %d Ingresses have their status 10 minutes after start", done, benchServices)
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Logf("every Ingress's status set %v after start", res.statuses)

	// EndpointSlice updates: each replaces a Service's endpoints by one probe upstream that
	// it did not list, and is timed until the first answer from that probe.
	in.waitSynced()
	master, workers := in.nginxPids()
	var took []time.Duration
	var sent []time.Time
	for i := 0; i < benchUpdates; i++ {
		h := (i * 37) % benchServices
		probe := probes[i%2]
		slice := fmt.Sprintf("svc%d-1", h)
		t0 := time.Now()
		updateSlice(b, c, benchNamespace(h), slice, []*nsUpstream{probe})
		took = append(took, firstAnswerFrom(b, in, benchHost(h), probe.name, t0))
		sent = append(sent, t0)
		time.Sleep(20 * time.Millisecond)
	}
	res.updates = percentilesOf(took)
	res.stages = updateStages(b, in, sent, took)
	if m, w := in.nginxPids(); m != master || fmt.Sprint(w) != fmt.Sprint(workers) {
		res.reloaded = true
	}
	res.rssAfter = procStatusBytes(b, pid, "VmRSS")
	res.rssPeak = procStatusBytes(b, pid, "VmHWM")
	res.loadEnd = loadAverageNow()
	b.StopTimer()
	b.Logf("updates to live traffic: %s; %s", res.updates, res.stages)
	b.Logf("RSS applied %.1f MiB, after updates %.1f MiB, peak %.1f MiB",
		mibOf(res.rssApplied), mibOf(res.rssAfter), mibOf(res.rssPeak))
	return res
}

func benchNamespace(i int) string { return fmt.Sprintf("bench%d", i%benchNamespaces) }
func benchHost(i int) string      { return fmt.Sprintf("h%d.bench.test", i) }

// benchSliceUpstreams are the two upstreams Service i's EndpointSlice lists.
func benchSliceUpstreams(i int, ups []*nsUpstream) []*nsUpstream {
	return []*nsUpstream{ups[i%len(ups)], ups[(i+1)%len(ups)]}
}

// createBenchObjects creates the namespaces, then each Service with its EndpointSlice and
// Ingress, from a few concurrent clients.
func createBenchObjects(b *testing.B, c *kubetest.Cluster, ups []*nsUpstream) {
	b.Helper()
	ctx := context.Background()
	opts := metav1.CreateOptions{}
	client := c.Client
	for i := 0; i < benchNamespaces; i++ {
		c.Namespace(b, benchNamespace(i))
	}
	createConcurrently(b, benchServices, func(i int) error {
		ns, name := benchNamespace(i), fmt.Sprintf("svc%d", i)
		if err := createBenchService(ctx, c, ns, name, benchSliceUpstreams(i, ups)); err != nil {
			return err
		}
		ing := kubetest.Ingress(ns, name, ingressClass, kubetest.Path{Host: benchHost(i), Path: "/", Service: name, Port: 80})
		if _, err := client.NetworkingV1().Ingresses(ns).Create(ctx, ing, opts); err != nil {
			return fmt.Errorf("create Ingress %s/%s: %w", ns, name, err)
		}
		return nil
	})
}

// createBenchService creates a headless Service of port 80 and its EndpointSlice of the
// upstreams. Headless: envtest's API server allocates ClusterIPs from a /24, and the
// reconciler routes to endpoints, never to a ClusterIP.
func createBenchService(ctx context.Context, c *kubetest.Cluster, ns, name string, ups []*nsUpstream) error {
	svc := kubetest.Service(ns, name, 80)
	svc.Spec.ClusterIP = corev1.ClusterIPNone
	if _, err := c.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create Service %s/%s: %w", ns, name, err)
	}
	slice := kubetest.EndpointSlice(ns, name, name+"-1", upstreamPort, ready(ups)...)
	if _, err := c.Client.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create EndpointSlice %s/%s: %w", ns, name, err)
	}
	return nil
}

// createConcurrently calls create for 0 … n-1 from 8 concurrent clients, and fails the
// benchmark with the errors it returned.
func createConcurrently(b *testing.B, n int, create func(i int) error) {
	b.Helper()
	const workers = 8
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := create(i); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// startup is what a benchmark measures from restyplane's start to its first revision served.
type startup struct {
	written        time.Duration // restyplane start to the reconciler's revision
	applied        time.Duration // start to that revision applied (status inSync)
	sampleServed   time.Duration // start to the sample of hosts answering through the proxy
	changes        int           // changes in the first revision
	firstApplyAt   time.Duration // start to the applier starting on the first revision
	firstApplyTook time.Duration
	firstApplyMode string
	firstRevision  int64
}

// measureStartup waits from started until the head revision holds n servers and the proxy
// runs it (status inSync), then until a sample of benchSample of the n hosts answer from
// their upstreams, and reads the first revision's apply.
func measureStartup(b *testing.B, in *instance, started time.Time, n int, host func(int) string, ups func(int) []*nsUpstream) startup {
	b.Helper()
	var s startup
	deadline := started.Add(5 * time.Minute)
	for {
		st := in.status()
		head, _ := st["head"].(float64)
		if head > 0 && s.written == 0 {
			s.written = time.Since(started)
		}
		if head > 0 && st["inSync"] == true {
			var list struct {
				Items []struct{ Name string } `json:"items"`
			}
			in.call("GET", "/api/v1/servers", nil, &list)
			if len(list.Items) >= n {
				s.applied, s.firstRevision = time.Since(started), int64(head)
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("not all %d servers applied 5 minutes after start: %v", n, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 0; i < benchSample; i++ {
		h := i * (n / benchSample)
		servedByOneOf(b, in, host(h), deadline, ups(h)...)
	}
	s.sampleServed = time.Since(started)
	var rev struct {
		ChangeCount int `json:"changeCount"`
	}
	in.call("GET", fmt.Sprintf("/api/v1/revisions/%d", s.firstRevision), nil, &rev)
	s.changes = rev.ChangeCount
	var applies struct {
		Items []struct {
			Revision   int64
			Mode       string
			Started    time.Time
			DurationMS float64
			Outcome    string
		}
	}
	in.call("GET", "/api/v1/applies?limit=20", nil, &applies)
	for _, a := range applies.Items {
		if a.Revision == s.firstRevision && a.Outcome == "success" {
			s.firstApplyAt, s.firstApplyMode = a.Started.Sub(started), a.Mode
			s.firstApplyTook = time.Duration(a.DurationMS * float64(time.Millisecond))
		}
	}
	b.Logf("start to revision %v, to applied %v, to %d sample hosts served %v (revision %d, %d changes)",
		s.written, s.applied, benchSample, s.sampleServed, s.firstRevision, s.changes)
	return s
}

// servedByOneOf waits until host answers 200 through the proxy from one of the upstreams.
func servedByOneOf(b *testing.B, in *instance, host string, deadline time.Time, ups ...*nsUpstream) {
	b.Helper()
	for {
		code, body := in.get(host, "/")
		if code == 200 {
			for _, u := range ups {
				if strings.HasPrefix(body, u.name+" ") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("GET %s through the proxy = %d %q", host, code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// firstAnswerFrom sends requests for host back to back until one is answered by the named
// upstream, and returns the time from since to that answer.
func firstAnswerFrom(b *testing.B, in *instance, host, name string, since time.Time) time.Duration {
	b.Helper()
	deadline := since.Add(30 * time.Second)
	for {
		code, body := in.get(host, "/")
		if code == 200 && strings.HasPrefix(body, name+" ") {
			return time.Since(since)
		}
		if time.Now().After(deadline) {
			b.Fatalf("GET %s: %d %q 30s after its EndpointSlice moved to %s", host, code, body, name)
		}
		time.Sleep(500 * time.Microsecond)
	}
}
