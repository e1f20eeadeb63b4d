package api

import "testing"

// TestHoldDigest: what a hold compares leaves out versions, a backend's endpoints and the
// difference between an empty list and none, and keeps everything else, secrets included.
func TestHoldDigest(t *testing.T) {
	srv := func(edit func(*Server)) string {
		s := &Server{Name: "shop", Hostnames: []string{"shop.example.com"}, Locations: []Location{{Path: "/", Backend: "a"}}}
		edit(s)
		return HoldDigest(Mutation{Kind: KindServer, Name: "shop", Server: s})
	}
	base := srv(func(*Server) {})
	if base == "" {
		t.Fatal("a server digests to nothing")
	}
	if got := srv(func(s *Server) { s.Version = 9 }); got != base {
		t.Error("the version changes the digest")
	}
	if got := srv(func(s *Server) { s.Locations[0].SetHeaders = []Header{} }); got != base {
		t.Error("an empty list digests unlike a missing one")
	}
	if got := srv(func(s *Server) { s.Locations[0].Backend = "b" }); got == base {
		t.Error("another backend digests alike")
	}
	// An object deleted and made again with the same spec (helm --force, a replace) is the
	// same content under a new UID: the cluster asks for what the rollback undid.
	owned := func(uid, name string) string {
		return srv(func(s *Server) { s.Source = Source{Kind: SourceKubernetes, Namespace: "shop", Name: name, UID: uid} })
	}
	if owned("uid-1", "web") != owned("uid-2", "web") {
		t.Error("the owner's UID changes the digest")
	}
	if owned("uid-1", "web") == owned("uid-1", "cart") {
		t.Error("another owner digests alike")
	}
	be := func(port int, lb string) string {
		b := &Backend{Name: "a", LoadBalance: lb, Endpoints: []Endpoint{{Address: "10.0.0.1", Port: port}}}
		return HoldDigest(Mutation{Kind: KindBackend, Name: "a", Backend: b})
	}
	if be(80, RoundRobin) != be(81, RoundRobin) {
		t.Error("a backend's endpoints change its digest")
	}
	routeRule := func(weight int) string {
		b := &Backend{Name: "r", Endpoints: []Endpoint{{Address: "10.0.0.1", Port: 80, Weight: weight}},
			Source: Source{Kind: SourceKubernetes, Object: ObjectHTTPRoute}}
		return HoldDigest(Mutation{Kind: KindBackend, Name: "r", Backend: b})
	}
	if routeRule(1000) == routeRule(0) {
		t.Error("the weights of a route rule's own backend, written before splits, do not change its digest")
	}
	// A rule's backend with its split: the split is the route's, the endpoints the Pods'.
	split := func(web, canary, unresolved int, eps []Endpoint, errorWeight int) string {
		b := &Backend{Name: "r", Endpoints: eps, ErrorWeight: errorWeight,
			Split:  &Split{Parts: []SplitPart{{"shop", "web", 80, web}, {"shop", "canary", 80, canary}}, UnresolvedWeight: unresolved},
			Source: Source{Kind: SourceKubernetes, Object: ObjectHTTPRoute}}
		return HoldDigest(Mutation{Kind: KindBackend, Name: "r", Backend: b})
	}
	pods := []Endpoint{{Address: "10.0.0.1", Port: 80, Weight: 1000}, {Address: "10.0.0.2", Port: 80, Weight: 111}}
	moved := []Endpoint{{Address: "10.0.0.3", Port: 80, Weight: 500}, {Address: "10.0.0.4", Port: 80, Weight: 500}, {Address: "10.0.0.2", Port: 80, Weight: 111}}
	splitBase := split(90, 10, 5, pods, 56)
	if got := split(90, 10, 5, moved, 111); got != splitBase {
		t.Error("a rule's backend digests unlike itself when only its Pods moved (endpoints and the share answered 500 they scale)")
	}
	if got := split(10, 90, 5, pods, 56); got == splitBase {
		t.Error("a rule's backend digests alike with the route's weights switched")
	}
	if got := split(90, 10, 0, pods, 0); got == splitBase {
		t.Error("a rule's backend digests alike without its unresolved backendRef")
	}
	if be(80, RoundRobin) == be(80, EWMA) {
		t.Error("a backend's balancing does not change its digest")
	}
	cert := func(key string) string {
		c := &Certificate{Name: "c", Cert: "CERT", Key: key}
		return HoldDigest(Mutation{Kind: KindCertificate, Name: "c", Certificate: c})
	}
	if cert("k1") == cert("k2") {
		t.Error("a certificate's key does not change its digest")
	}
	if got := HoldDigest(Mutation{Kind: KindServer, Name: "shop", Delete: true}); got != "" {
		t.Errorf("a delete digests to %q, want \"\"", got)
	}
}
