package e2e

import (
	"fmt"
	"strings"
	"time"
)

// gwBenchResult is what one run of the Gateway API scenario measured.
type gwBenchResult struct {
	load, loadEnd string // load averages when the run started and after the changes
	code          string
	created       time.Duration // creating the objects in the API server
	startup
	allServed   int           // hosts answering through the proxy, of gwBenchRoutes
	allServedAt time.Duration // start to the end of checking every host
	statuses    time.Duration // start to every HTTPRoute Accepted in its status
	// all, weights and slices time the changes to live traffic: all of them, the weight
	// switches and the EndpointSlice moves.
	all, weights, slices percentiles
	// filters time the header filter changes, which reload nginx.
	filters  percentiles
	reloaded bool // the nginx master or worker pids changed during the changes
	stages   stages
	rssPeak  int64
}

// markdown is the benchmark's section of BENCHMARKS.md.
func (r *gwBenchResult) markdown() string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	p("## Gateway API: 1,000 HTTPRoutes end to end\n\n")
	benchHeadline(p, "BenchmarkGatewayAPI", "the changes", r.load, r.loadEnd, r.code)
	p("Scenario: a real kube-apiserver and etcd (envtest) with Gateway API's CRDs hold one Gateway of class `%s` "+
		"(controller `restyplane.io/gateway-controller`), an HTTP listener on the proxy's port admitting every namespace, and "+
		"%d HTTPRoutes in %d namespaces. Each route has one host and one rule: `/` to its own headless Service (an "+
		"EndpointSlice of two of %d upstreams) and to its namespace's canary Service `green` by equal weights, and to "+
		"`blue` by weight 0. The upstreams are real HTTP servers in a network namespace the benchmark creates. The objects exist "+
		"before restyplane starts; the clock starts when `restyplane serve --kubeconfig …` is started, with its managed nginx. "+
		"Then %d changes, one after another, each to another route and each timed from the API write to the first answer "+
		"through the proxy from the upstream the change sends the route to: every other change switches the route's canary "+
		"weight from green to blue (an HTTPRoute update), the others move its Service's EndpointSlice to another upstream. "+
		"API server, etcd, restyplane, nginx, upstreams and the benchmark share the machine.\n\n",
		gatewayClass, gwBenchRoutes, benchNamespaces, benchUpstreams, gwBenchChanges)

	p("| measure | result | goal | |\n|---|---|---|---|\n")
	p("| restyplane start → all %d routes served (status `inSync`, %d servers listed) | %.2f s | — | |\n",
		gwBenchRoutes, gwBenchRoutes, r.applied.Seconds())
	p("| a change to one route → live traffic, p99 over %d changes | %.1f ms | ≤ %d ms | %s |\n\n",
		r.all.runs, millis(r.all.p99), goalUpdateP99.Milliseconds(), met(r.all.p99 <= goalUpdateP99))

	p("| timing | result |\n|---|---|\n")
	p("| creating the %d Services, EndpointSlices and HTTPRoutes (8 clients, before restyplane starts; not part of the figures below) | %.1f s |\n",
		gwBenchRoutes, r.created.Seconds())
	r.startup.rows(p, gwBenchRoutes)
	p("| hosts answering 200 from their upstreams through the proxy, checked one by one afterwards (done %.2f s after start) | %d of %d |\n",
		r.allServedAt.Seconds(), r.allServed, gwBenchRoutes)
	p("| start → every HTTPRoute `Accepted` in its status (the reporter writes after the revision, one status write per route, through a client of its own) | %.1f s |\n",
		r.statuses.Seconds())
	p("| a change to one route → first answer from its new upstream, all %d | %s |\n", r.all.runs, r.all)
	p("| … of them the weight switches (HTTPRoute update) | %s |\n", r.weights)
	p("| … of them the EndpointSlice moves | %s |\n", r.slices)
	reload := "none (nginx master and worker pids unchanged)"
	if r.reloaded {
		reload = "**nginx pids changed: a reload happened**"
	}
	p("| reloads during the changes | %s |\n", reload)
	p("| a header filter set on one route (an HTTPRoute update that changes a location: a reload of nginx), %d of them after the changes above, not part of the goal → first answer with the header | %s |\n",
		r.filters.runs, r.filters)
	p("| restyplane resident memory, peak (`VmHWM`) | %.0f MiB |\n\n", mibOf(r.rssPeak))

	st := r.stages
	p("Where a change's time goes, from restyplane's own records (each change's revision time and the apply record "+
		"of that revision; %d of %d changes matched):\n\n", r.all.runs-st.unmatched, r.all.runs)
	st.table(p, [4]string{
		"API write sent → revision written (API server, watch, informer, the reconciler's sync, the store's write)",
		"revision written → applier starts the apply",
		"apply (dynamic push to nginx's shared memory, apply record)",
		"apply recorded → first answer from the new upstream (the record is written after the push, so this can be below 0)",
	})
	return w.String()
}
