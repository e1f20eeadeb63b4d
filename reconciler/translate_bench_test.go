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
	snap := snapshotOf(objs...)
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
