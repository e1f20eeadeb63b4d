package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/internal/benchmd"
	"github.com/restyplane/restyplane/internal/rptest"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// Sizes of the Gateway API benchmark; it shares benchNamespaces, benchUpstreams and
// benchSample with BenchmarkKubernetes.
const (
	gwBenchRoutes  = 1000
	gwBenchChanges = 100 // half weight switches, half EndpointSlice moves
	// gwBenchFilterChanges are header filter changes, timed apart: each reloads nginx.
	gwBenchFilterChanges = 10
	gwBenchGateway       = "gwbench"
)

// BenchmarkGatewayAPI puts 1,000 HTTPRoutes, each with a Service and an EndpointSlice of its
// own, and one shared Gateway into a real kube-apiserver, then starts the restyplane binary
// on it (with its managed nginx) and measures the time from its start to all of them served
// through the proxy, then the time from an API write that changes one route to live traffic
// showing it, over 100 changes: the weights of a route's backendRefs switched from one
// Service to another, and a route's Service's EndpointSlice moved to another upstream.
// Upstreams are real HTTP servers in a network namespace.
//
// Run it with `make bench`, which sets RESTYPLANE_BENCH_OUT so that the results are written
// into BENCHMARKS.md. One iteration is the whole scenario; use -benchtime 1x.
func BenchmarkGatewayAPI(b *testing.B) {
	for i := 0; i < b.N; i++ {
		res := runGatewayBench(b)
		b.ReportMetric(res.applied.Seconds(), "start-to-applied-s")
		b.ReportMetric(millis(res.all.p50), "change-p50-ms")
		b.ReportMetric(millis(res.all.p99), "change-p99-ms")
		if out := os.Getenv("RESTYPLANE_BENCH_OUT"); out != "" {
			if err := benchmd.WriteSection(out, "gateway-api", res.markdown()); err != nil {
				b.Fatalf("write %s: %v", out, err)
			}
		}
	}
}

// gwBench is the scenario's cluster, restyplane and upstreams.
type gwBench struct {
	c   *kubetest.Cluster
	in  *instance
	ups []*nsUpstream
	// green and blue are each namespace's two canary Services' upstreams; moved is where
	// the EndpointSlice moves send a route's own Service.
	green, blue, moved *nsUpstream
}

func runGatewayBench(b *testing.B) *gwBenchResult {
	b.Helper()
	res := &gwBenchResult{load: loadAverageNow(), code: codeVersion()}
	rptest.Binary(b) // built before any clock starts
	ns := newNetns(b)
	g := &gwBench{c: kubetest.StartGatewayAPIT(b)}
	kubeconfig := g.c.Kubeconfig(b)
	g.c.Create(b, kubetest.GatewayClass(gatewayClass, reconciler.DefaultGatewayController))
	for i := 0; i < benchUpstreams; i++ {
		g.ups = append(g.ups, ns.upstream(b, fmt.Sprintf("u%d", i)))
	}
	g.green, g.blue, g.moved = ns.upstream(b, "green"), ns.upstream(b, "blue"), ns.upstream(b, "moved")
	proxy := rptest.FreeAddr(b)

	startCreate := time.Now()
	g.createObjects(b, proxy)
	res.created = time.Since(startCreate)
	b.Logf("created %d Services, EndpointSlices and HTTPRoutes in %v", gwBenchRoutes, res.created)

	b.ResetTimer()
	started := time.Now()
	g.in = &instance{t: b, Process: rptest.Start(b, rptest.Options{Token: adminToken, Reason: "e2e gateway benchmark", Proxy: proxy,
		Args: []string{"--kubeconfig", kubeconfig, "--lease-namespace", "default", "--lease-identity", "bench",
			"--gateway-address", "127.0.0.1", "--log-level", "warn"}})}
	in := g.in
	pid := in.PID()
	res.startup = measureStartup(b, in, started, gwBenchRoutes, gwBenchHost, g.first)
	for h := 0; h < gwBenchRoutes; h++ {
		if code, body := in.get(gwBenchHost(h), "/"); code == 200 && answeredByOneOf(body, g.first(h)) {
			res.allServed++
		}
	}
	res.allServedAt = time.Since(started)
	b.Logf("all %d hosts checked %v after start: %d served", gwBenchRoutes, res.allServedAt, res.allServed)
	res.statuses = g.waitRoutesAccepted(b, started)
	b.Logf("every HTTPRoute Accepted %v after start", res.statuses)

	in.waitSynced()
	master, workers := in.nginxPids()
	var took, weights, slices []time.Duration
	var sent []time.Time
	for k := 0; k < gwBenchChanges; k++ {
		h := (k * 37) % gwBenchRoutes
		var t0 time.Time
		var d time.Duration
		if k%2 == 0 {
			t0 = g.switchToBlue(b, h)
			d = firstAnswerFrom(b, in, gwBenchHost(h), g.blue.name, t0)
			weights = append(weights, d)
		} else {
			t0 = time.Now()
			updateSlice(b, g.c, benchNamespace(h), fmt.Sprintf("svc%d-1", h), []*nsUpstream{g.moved})
			d = firstAnswerFrom(b, in, gwBenchHost(h), g.moved.name, t0)
			slices = append(slices, d)
		}
		took, sent = append(took, d), append(sent, t0)
		time.Sleep(20 * time.Millisecond)
	}
	res.all, res.weights, res.slices = percentilesOf(took), percentilesOf(weights), percentilesOf(slices)
	res.stages = updateStages(b, in, sent, took)
	if m, w := in.nginxPids(); m != master || fmt.Sprint(w) != fmt.Sprint(workers) {
		res.reloaded = true
	}
	b.Logf("changes to live traffic: all %s; weights %s; EndpointSlices %s; %s", res.all, res.weights, res.slices, res.stages)
	res.filters = g.filterChanges(b)
	b.Logf("header filter changes to live traffic (reloads): %s", res.filters)
	res.rssPeak = procStatusBytes(b, pid, "VmHWM")
	res.loadEnd = loadAverageNow()
	b.StopTimer()
	return res
}

func gwBenchHost(i int) string { return fmt.Sprintf("r%d.gw.bench.test", i) }

// first are the upstreams route i's requests go to before any change: its Service's two
// and the green canary's.
func (g *gwBench) first(i int) []*nsUpstream {
	return append(benchSliceUpstreams(i, g.ups), g.green)
}

// answeredByOneOf reports whether a body is the answer of one of the upstreams.
func answeredByOneOf(body string, ups []*nsUpstream) bool {
	for _, u := range ups {
		if strings.HasPrefix(body, u.name+" ") {
			return true
		}
	}
	return false
}

// createObjects creates the Gateway, with one HTTP listener on the proxy's port that admits
// every namespace's routes; in each namespace the canary Services green and blue; and for
// each route its Service, EndpointSlice and HTTPRoute: one host, "/" to its Service and
// green by equal weights, and blue by weight 0.
func (g *gwBench) createObjects(b *testing.B, proxy string) {
	b.Helper()
	ctx := context.Background()
	g.c.Namespace(b, gwBenchGateway)
	g.c.Create(b, kubetest.Gateway(gwBenchGateway, "gw", gatewayClass, kubetest.Listener("http", int32(portOf(b, proxy)), "")))
	for i := 0; i < benchNamespaces; i++ {
		ns := g.c.Namespace(b, benchNamespace(i))
		for _, u := range []*nsUpstream{g.green, g.blue} {
			if err := createBenchService(ctx, g.c, ns, u.name, []*nsUpstream{u}); err != nil {
				b.Fatal(err)
			}
		}
	}
	gwNS := gatewayv1.Namespace(gwBenchGateway)
	createConcurrently(b, gwBenchRoutes, func(i int) error {
		ns, name := benchNamespace(i), fmt.Sprintf("svc%d", i)
		if err := createBenchService(ctx, g.c, ns, name, benchSliceUpstreams(i, g.ups)); err != nil {
			return err
		}
		r := kubetest.HTTPRoute(ns, fmt.Sprintf("r%d", i), "gw", []string{gwBenchHost(i)},
			kubetest.Rule("/", []string{name, g.green.name, g.blue.name}, 1, 1, 0))
		r.Spec.ParentRefs[0].Namespace = &gwNS
		if _, err := g.c.Gateway.GatewayV1().HTTPRoutes(ns).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create HTTPRoute %s/%s: %w", ns, r.Name, err)
		}
		return nil
	})
}

// switchToBlue moves route i's canary weight from green to blue and returns when it sent
// the update. The route's rule keeps two backendRefs of weight, so its backend keeps its
// name and the change is one of endpoints and weights.
func (g *gwBench) switchToBlue(b *testing.B, i int) time.Time {
	b.Helper()
	routes := g.c.Gateway.GatewayV1().HTTPRoutes(benchNamespace(i))
	r, err := routes.Get(context.Background(), fmt.Sprintf("r%d", i), metav1.GetOptions{})
	if err != nil {
		b.Fatalf("get HTTPRoute r%d: %v", i, err)
	}
	refs := r.Spec.Rules[0].BackendRefs
	zero, one := int32(0), int32(1)
	refs[1].Weight, refs[2].Weight = &zero, &one
	t0 := time.Now()
	if _, err := routes.Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
		b.Fatalf("update HTTPRoute r%d: %v", i, err)
	}
	return t0
}

// filterChanges gives gwBenchFilterChanges routes, one after another, a response header
// filter that sets X-Bench, and times each from the API write to the first answer through
// the proxy with the header. A filter is a location's: each change reloads nginx.
func (g *gwBench) filterChanges(b *testing.B) percentiles {
	b.Helper()
	var took []time.Duration
	for k := 0; k < gwBenchFilterChanges; k++ {
		h := (k*37 + 500) % gwBenchRoutes
		routes := g.c.Gateway.GatewayV1().HTTPRoutes(benchNamespace(h))
		r, err := routes.Get(context.Background(), fmt.Sprintf("r%d", h), metav1.GetOptions{})
		if err != nil {
			b.Fatalf("get HTTPRoute r%d: %v", h, err)
		}
		want := fmt.Sprint(k)
		r.Spec.Rules[0].Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterResponseHeaderModifier,
			ResponseHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Bench", Value: want}}}}}
		t0 := time.Now()
		if _, err := routes.Update(context.Background(), r, metav1.UpdateOptions{}); err != nil {
			b.Fatalf("update HTTPRoute r%d: %v", h, err)
		}
		for {
			if resp, _ := g.in.request(g.in.proxyAddr(), "GET", gwBenchHost(h), "/", ""); resp.Header.Get("X-Bench") == want {
				break
			}
			if time.Since(t0) > 30*time.Second {
				b.Fatalf("GET %s/ has no X-Bench: %s 30s after its filter was set", gwBenchHost(h), want)
			}
			time.Sleep(time.Millisecond)
		}
		took = append(took, time.Since(t0))
	}
	return percentilesOf(took)
}

// waitRoutesAccepted waits until every HTTPRoute's status says restyplane accepted it, and
// returns the time from started.
func (g *gwBench) waitRoutesAccepted(b *testing.B, started time.Time) time.Duration {
	b.Helper()
	for {
		l, err := g.c.Gateway.GatewayV1().HTTPRoutes("").List(context.Background(), metav1.ListOptions{})
		done := 0
		if err == nil {
			for _, r := range l.Items {
				for _, p := range r.Status.Parents {
					if ok, _ := hasCondition(p.Conditions, "Accepted", "True", "Accepted", r.Generation); ok {
						done++
					}
				}
			}
		}
		if done == gwBenchRoutes {
			return time.Since(started)
		}
		if time.Now().After(started.Add(10 * time.Minute)) {
			b.Fatalf("%d of %d HTTPRoutes Accepted 10 minutes after start", done, gwBenchRoutes)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
