package reconciler

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// BenchmarkResync measures one sync's work for 2,000 Ingresses, each with its Service, an
// EndpointSlice of three endpoints and a TLS Secret, against a head that already holds
// them: the cost every EndpointSlice update pays before its write.
func BenchmarkResync(b *testing.B) {
	const n = 2000
	cert, key := kubetest.SelfSigned(b, "bench.example.com")
	var objs []runtime.Object
	for i := 0; i < n; i++ {
		ns, name, host := fmt.Sprintf("ns%d", i%20), fmt.Sprintf("svc%d", i), fmt.Sprintf("h%d.example.com", i)
		ing := withTLS(kubetest.Ingress(ns, name, "c", kubetest.Path{Host: host, Path: "/", Service: name, Port: 80}), name+"-tls", host)
		objs = append(objs, kubetest.Service(ns, name, 80),
			kubetest.EndpointSlice(ns, name, name+"-1", 8080, kubetest.Ready(fmt.Sprintf("10.%d.%d.1", i/250, i%250), fmt.Sprintf("10.%d.%d.2", i/250, i%250), fmt.Sprintf("10.%d.%d.3", i/250, i%250))...),
			kubetest.TLSSecret(ns, name+"-tls", cert, key), aged(ing, i))
	}
	benchResync(b, snapshotOf(objs...))
}

// benchResync translates snap into a head, then times translating it again against that
// head, which must call for no mutation.
func benchResync(b *testing.B, snap *Snapshot) {
	b.Helper()
	snap.cache = newTranslationCache()
	head := api.NewState()
	for _, m := range mutations(Translate(snap, head), head) {
		if err := m.Validate(); err != nil {
			b.Fatal(err)
		}
		head.Apply(m)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if muts := mutations(Translate(snap, head), head); len(muts) != 0 {
			b.Fatalf("%d mutations, want none", len(muts))
		}
		snap.cache.rotate()
	}
}

// BenchmarkGatewayResync measures one sync's work for 1,000 HTTPRoutes on one Gateway,
// each with its Service and an EndpointSlice of two endpoints and a rule that balances it
// with a canary Service by weights, against a head that already holds them: the cost every
// change to a route, or to the endpoints of a Service a route names, pays before its write.
func BenchmarkGatewayResync(b *testing.B) {
	const n = 1000
	objs := gatewayBase()
	for i := 0; i < 20; i++ {
		objs = append(objs, serviceWith(fmt.Sprintf("ns%d", i), "canary", fmt.Sprintf("10.200.%d.1", i))...)
	}
	for i := 0; i < n; i++ {
		ns, name := fmt.Sprintf("ns%d", i%20), fmt.Sprintf("svc%d", i)
		objs = append(objs, serviceWith(ns, name, fmt.Sprintf("10.%d.%d.1", i/250, i%250), fmt.Sprintf("10.%d.%d.2", i/250, i%250))...)
		objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute(ns, fmt.Sprintf("r%d", i), "", []string{fmt.Sprintf("r%d.example.com", i)},
			kubetest.Rule("/", []string{name, "canary"}, 9, 1)), ""), i))
	}
	benchResync(b, gwSnapshot(objs...))
}
