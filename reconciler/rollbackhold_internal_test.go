package reconciler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

func k8sBackend(name string) *api.Backend {
	return &api.Backend{Name: name, LoadBalance: api.RoundRobin, Endpoints: []api.Endpoint{{Address: "10.0.0.1", Port: 80, Weight: 1}},
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: "ns", Name: name}}
}

func k8sServer(name, host, backend string) *api.Server {
	return &api.Server{Name: name, Hostnames: []string{host}, Locations: []api.Location{{Path: "/", Match: api.MatchPrefix, Backend: backend}},
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: "ns", Name: "ing"}}
}

func noFollow(string) ([]api.Endpoint, bool) { return nil, false }

// TestHoldBackKeepsWhatHeldServersName: a backend that a held server names is not deleted
// under it, though no Ingress names it any more and it is not held itself.
func TestHoldBackKeepsWhatHeldServersName(t *testing.T) {
	head := api.NewState()
	head.Backends["x"] = k8sBackend("x")
	head.Servers["s"] = k8sServer("s", "s.example.com", "x")
	// What the cluster asks for: s routes to y, and x is gone.
	tr := &Translation{Backends: map[string]*api.Backend{"y": k8sBackend("y")}, Servers: map[string]*api.Server{"s": k8sServer("s", "s.example.com", "y")}}
	sRef := api.Ref{Kind: api.KindServer, Name: "s"}
	holds := map[api.Ref]api.Hold{sRef: {Kind: api.KindServer, Name: "s", Revision: 3,
		Rejected: api.HoldDigest(api.Mutation{Kind: api.KindServer, Name: "s", Server: tr.Servers["s"]})}}
	muts := mutations(tr, head)
	out, release, held := holdBack(tr, head, muts, holds, noFollow)
	if len(release) != 0 || held[sRef].Revision != 3 {
		t.Fatalf("release %v, held %v: want s held", release, held)
	}
	for _, m := range out {
		if m.Ref() == sRef || m.Kind == api.KindBackend && m.Name == "x" {
			t.Errorf("held back %v is written: %+v", m.Ref(), m)
		}
	}
	if err := candidate(head, out).CheckAll(); err != nil {
		t.Fatalf("the write holding s back does not check: %v", err)
	}
}

// TestHoldBackCreatesWhatANewServerNames: a backend whose creation a rollback held back
// is created after all, and its hold released, when another server now names it.
func TestHoldBackCreatesWhatANewServerNames(t *testing.T) {
	head := api.NewState()
	tr := &Translation{Backends: map[string]*api.Backend{"y": k8sBackend("y")}, Servers: map[string]*api.Server{"t": k8sServer("t", "t.example.com", "y")}}
	yRef := api.Ref{Kind: api.KindBackend, Name: "y"}
	holds := map[api.Ref]api.Hold{yRef: {Kind: api.KindBackend, Name: "y", Revision: 3,
		Rejected: api.HoldDigest(api.Mutation{Kind: api.KindBackend, Name: "y", Backend: tr.Backends["y"]})}}
	out, release, _ := holdBack(tr, head, mutations(tr, head), holds, noFollow)
	if len(release) != 1 || release[0] != yRef {
		t.Fatalf("release = %v, want y", release)
	}
	if err := candidate(head, out).CheckAll(); err != nil {
		t.Fatalf("the write does not check: %v", err)
	}
}

// TestHoldBackReleasesOnAnotherAsk: a hold whose object the cluster now asks for
// differently is released, and what the cluster asks for is written.
func TestHoldBackReleasesOnAnotherAsk(t *testing.T) {
	head := api.NewState()
	head.Backends["x"] = k8sBackend("x")
	head.Servers["s"] = k8sServer("s", "s.example.com", "x")
	tr := &Translation{Backends: map[string]*api.Backend{"x": k8sBackend("x")}, Servers: map[string]*api.Server{"s": k8sServer("s", "s.example.com", "x")}}
	tr.Servers["s"].Locations[0].Path = "/v2"
	sRef := api.Ref{Kind: api.KindServer, Name: "s"}
	holds := map[api.Ref]api.Hold{sRef: {Kind: api.KindServer, Name: "s", Revision: 3, Rejected: "something else"}}
	out, release, held := holdBack(tr, head, mutations(tr, head), holds, noFollow)
	if len(release) != 1 || len(held) != 0 || len(out) != 1 || out[0].Ref() != sRef {
		t.Fatalf("out %v, release %v, held %v: want s written and released", out, release, held)
	}
}

// TestHoldBackDeletesAnOrphanOnce: a backend a rollback made again for a held server, and
// whose Service's Pods moved, is deleted once that server's hold ends, and the request
// names it once: the delete, not also the write of its new endpoints, which made the
// store refuse the whole request (written twice).
func TestHoldBackDeletesAnOrphanOnce(t *testing.T) {
	head := api.NewState()
	head.Backends["x"] = k8sBackend("x")
	head.Servers["s"] = k8sServer("s", "s.example.com", "x")
	// What the cluster asks for now: s routes to y; nothing names x.
	tr := &Translation{Backends: map[string]*api.Backend{"y": k8sBackend("y")}, Servers: map[string]*api.Server{"s": k8sServer("s", "s.example.com", "y")}}
	sRef, xRef := api.Ref{Kind: api.KindServer, Name: "s"}, api.Ref{Kind: api.KindBackend, Name: "x"}
	holds := map[api.Ref]api.Hold{
		sRef: {Kind: api.KindServer, Name: "s", Revision: 3, Rejected: "what the cluster asked for before"},
		xRef: {Kind: api.KindBackend, Name: "x", Revision: 3}, // made again: Kubernetes had deleted it
	}
	moved := func(string) ([]api.Endpoint, bool) {
		return []api.Endpoint{{Address: "10.0.0.9", Port: 80, Weight: 1}}, true
	}
	out, release, held := holdBack(tr, head, mutations(tr, head), holds, moved)
	var ofX []api.Mutation
	for _, m := range out {
		if m.Ref() == xRef {
			ofX = append(ofX, m)
		}
	}
	if len(ofX) != 1 || !ofX[0].Delete {
		t.Fatalf("the request has %d mutations of backend x (%+v), want its delete alone", len(ofX), ofX)
	}
	if len(release) != 2 || len(held) != 0 {
		t.Fatalf("release %v, held %v: want s and x released", release, held)
	}
	if err := candidate(head, out).CheckAll(); err != nil {
		t.Fatalf("the write does not check: %v", err)
	}
}

// TestHoldBackKeepsARouteRulesWeights: a backend that a Gateway API rule owns, written
// before backends recorded their split, has the route's weights in its endpoints alone;
// held, it keeps them as the rollback left them.
func TestHoldBackKeepsARouteRulesWeights(t *testing.T) {
	rule := func(w1, w2 int) *api.Backend {
		b := k8sBackend("rule")
		b.Source.Object = api.ObjectHTTPRoute
		b.Endpoints = []api.Endpoint{{Address: "10.0.0.1", Port: 80, Weight: w1}, {Address: "10.0.0.2", Port: 80, Weight: w2}}
		return b
	}
	head := api.NewState()
	head.Backends["rule"] = rule(1000, 333)
	tr := &Translation{Backends: map[string]*api.Backend{"rule": rule(1, 1000)}}
	ref := api.Ref{Kind: api.KindBackend, Name: "rule"}
	holds := map[api.Ref]api.Hold{ref: {Kind: api.KindBackend, Name: "rule", Revision: 3,
		Rejected: api.HoldDigest(api.Mutation{Kind: api.KindBackend, Name: "rule", Backend: tr.Backends["rule"]})}}
	out, release, held := holdBack(tr, head, mutations(tr, head), holds, noFollow)
	if len(out) != 0 || len(release) != 0 || len(held) != 1 {
		t.Fatalf("out %+v, release %v, held %v: want the rule's backend held as it is", out, release, held)
	}
}

// TestHoldBackLetsAnExpiringCertificateGo: a certificate a rollback restored is held until
// a day before it expires; then the cluster's is written, rather than an expired one
// served.
func TestHoldBackLetsAnExpiringCertificateGo(t *testing.T) {
	cert := func(fp string, notAfter time.Time) *api.Certificate {
		return &api.Certificate{Name: "c", Cert: fp, Fingerprint: fp, NotAfter: notAfter, KeyMatches: true,
			Source: api.Source{Kind: api.SourceKubernetes, Namespace: "ns", Name: "tls"}}
	}
	ref := api.Ref{Kind: api.KindCertificate, Name: "c"}
	for _, c := range []struct {
		name    string
		expires time.Duration
		held    bool
	}{{"valid for a month", 30 * 24 * time.Hour, true}, {"expiring in an hour", time.Hour, false}} {
		head := api.NewState()
		head.Certificates["c"] = cert("restored", time.Now().Add(c.expires))
		tr := &Translation{Certificates: map[string]*api.Certificate{"c": cert("undone", time.Now().Add(90*24*time.Hour))}}
		holds := map[api.Ref]api.Hold{ref: {Kind: api.KindCertificate, Name: "c", Revision: 3,
			Rejected: api.HoldDigest(api.Mutation{Kind: api.KindCertificate, Name: "c", Certificate: tr.Certificates["c"]})}}
		out, release, held := holdBack(tr, head, mutations(tr, head), holds, noFollow)
		if _, ok := held[ref]; ok != c.held || c.held == (len(release) > 0) || c.held == (len(out) > 0) {
			t.Errorf("%s: out %d mutations, release %v, held %v; want held %v", c.name, len(out), release, held, c.held)
		}
	}
}

// TestHoldBackFollowsASplitsPods: a held backend of a Gateway API rule keeps the weights
// its split says and takes its Service ports' endpoints as they are now: as a route's
// backendRef resolves them, or, for a port no route names any more, as its backend has
// them (follow). When a port has neither, it keeps what it has.
func TestHoldBackFollowsASplitsPods(t *testing.T) {
	src := api.Source{Kind: api.SourceKubernetes, Object: api.ObjectHTTPRoute, Namespace: "ns", Name: "shop"}
	endpoints := func(addrs ...string) []api.Endpoint {
		var eps []api.Endpoint
		for _, a := range addrs {
			eps = append(eps, api.Endpoint{Address: a, Port: 80, Weight: 1})
		}
		return eps
	}
	web, canary := refPort{"ns", "web", 80}, refPort{"ns", "canary", 80}
	rule := func(ports map[refPort][]api.Endpoint, wWeb, wCanary int) *api.Backend {
		return weightedBackend("rule", src, []weightedPart{
			{b: &api.Backend{Endpoints: ports[web]}, part: api.SplitPart{Namespace: "ns", Service: "web", Port: 80, Weight: wWeb}},
			{b: &api.Backend{Endpoints: ports[canary]}, part: api.SplitPart{Namespace: "ns", Service: "canary", Port: 80, Weight: wCanary}},
		}, 0, &api.Backend{})
	}
	ref := api.Ref{Kind: api.KindBackend, Name: "rule"}
	// The rollback left 90/10 on the Pods of then; the cluster asks for 10/90 on those of now.
	then := map[refPort][]api.Endpoint{web: endpoints("10.0.0.1"), canary: endpoints("10.0.0.2")}
	head := api.NewState()
	head.Backends["rule"] = rule(then, 90, 10)
	head.Backends["rule"].Version = 5
	tr := &Translation{refPorts: map[refPort][]api.Endpoint{web: endpoints("10.0.1.1", "10.0.1.2"), canary: endpoints("10.0.0.2")}}
	tr.Backends = map[string]*api.Backend{"rule": rule(tr.refPorts, 10, 90)}
	holds := map[api.Ref]api.Hold{ref: {Kind: api.KindBackend, Name: "rule", Revision: 3,
		Rejected: api.HoldDigest(api.Mutation{Kind: api.KindBackend, Name: "rule", Backend: rule(then, 10, 90)})}}
	weights := func(b *api.Backend) string {
		var s []string
		for _, e := range b.Endpoints {
			s = append(s, fmt.Sprintf("%s=%d", e.Address, e.Weight))
		}
		return strings.Join(s, " ")
	}
	written := func(out []api.Mutation) *api.Backend {
		for _, m := range out {
			if m.Ref() == ref {
				return m.Backend
			}
		}
		return nil
	}

	out, release, held := holdBack(tr, head, mutations(tr, head), holds, noFollow)
	if len(release) != 0 || len(held) != 1 {
		t.Fatalf("release %v, held %v: want the rule's backend held though its Pods moved", release, held)
	}
	b := written(out)
	if b == nil {
		t.Fatalf("out %+v: want the held rule's backend on web's new Pods", out)
	}
	// web weighs 90 over 2 endpoints, canary 10 over 1: 45 and 10, scaled to 1000.
	if got, want := weights(b), "10.0.0.2=222 10.0.1.1=1000 10.0.1.2=1000"; got != want {
		t.Errorf("held rule's endpoints = %s, want %s", got, want)
	}
	if d := cmp.Diff(head.Backends["rule"].Split, b.Split); d != "" {
		t.Errorf("held rule's split (-held +written):\n%s", d)
	}

	// No route names web any more: its backend's endpoints, through follow.
	delete(tr.refPorts, web)
	follow := func(name string) ([]api.Endpoint, bool) {
		if name != "k8s.ns.web.80" {
			return nil, false
		}
		return endpoints("10.0.2.1"), true
	}
	out, _, _ = holdBack(tr, head, mutations(tr, head), holds, follow)
	if b := written(out); b == nil || weights(b) != "10.0.0.2=111 10.0.2.1=1000" {
		t.Errorf("held rule's backend with web followed = %+v, want 10.0.0.2=111 10.0.2.1=1000", b)
	}
	out, _, _ = holdBack(tr, head, mutations(tr, head), holds, noFollow)
	if b := written(out); b != nil {
		t.Errorf("held rule's backend without web's endpoints written as %+v, want it kept", b)
	}
}
