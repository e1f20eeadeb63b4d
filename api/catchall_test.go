package api

import (
	"strings"
	"testing"
)

// TestCatchAllServer: a server asks for the catch-all by naming "_"; one without hostnames
// is told so; the catch-all is the REST API's or Kubernetes's, never both.
func TestCatchAllServer(t *testing.T) {
	err := (&Server{Name: "none", Source: Source{Kind: SourceAPI}}).Validate()
	if err == nil || !strings.Contains(err.Error(), `"_"`) {
		t.Fatalf("a server without hostnames: %v, want an error naming the catch-all \"_\"", err)
	}
	all := &Server{Name: "all", Hostnames: []string{CatchAllHostname}, Source: Source{Kind: SourceAPI},
		Locations: []Location{{Path: "/", Backend: "b"}}}
	if err := all.Validate(); err != nil {
		t.Fatalf("a server of the catch-all: %v", err)
	}
	k8s := &Server{Name: "k8s._default", Hostnames: []string{CatchAllHostname},
		Source:    Source{Kind: SourceKubernetes, Namespace: "shop", Name: "ui", UID: "u1"},
		Locations: []Location{{Path: "/ui", Backend: "b"}}}
	s := &State{Backends: map[string]*Backend{"b": {Name: "b"}}, Servers: map[string]*Server{"all": all, k8s.Name: k8s}}
	err = s.Check([]Ref{{KindServer, "all"}})
	if e, ok := err.(*Error); !ok || e.Code != EConflict || !strings.Contains(e.Message, "never share a hostname") {
		t.Fatalf("a REST and a Kubernetes catch-all: %v, want a conflict", err)
	}
}

// TestServerDefaultCertificate: a server presents a named certificate or the proxy's
// default one, never both, and the default one names no certificate object.
func TestServerDefaultCertificate(t *testing.T) {
	srv := func(tls *ServerTLS) *Server {
		return &Server{Name: "lb", Hostnames: []string{"lb.example.com"}, TLS: tls,
			Locations: []Location{{Path: "/", Match: MatchPrefix, Backend: "web"}}}
	}
	if err := srv(&ServerTLS{DefaultCertificate: true, Redirect: true}).Validate(); err != nil {
		t.Errorf("default certificate: %v", err)
	}
	if err := srv(&ServerTLS{DefaultCertificate: true, Certificate: "x"}).Validate(); ErrorCode(err) != EInvalid {
		t.Errorf("default certificate and a named one: %v, want invalid", err)
	}
	if err := srv(&ServerTLS{}).Validate(); ErrorCode(err) != EInvalid {
		t.Errorf("no certificate at all: %v, want invalid", err)
	}
	st := NewState()
	st.Backends["web"] = &Backend{Name: "web"}
	if err := st.checkServerRefs(srv(&ServerTLS{DefaultCertificate: true})); err != nil {
		t.Errorf("default certificate's refs: %v", err)
	}
}
