package api

import (
	"errors"
	"strings"
	"testing"
)

func passthroughServer(name, host string) *Server {
	return &Server{Name: name, Hostnames: []string{host}, Passthrough: &Passthrough{Backend: "argocd"},
		Locations: []Location{{Path: "/", Backend: "web"}}}
}

func TestPassthroughValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(s *Server)
		wantErr string // the field named; "" for valid
	}{
		{"plain", func(s *Server) {}, ""},
		{"wildcard host", func(s *Server) { s.Hostnames = []string{"*.cd.example.com"} }, ""},
		{"no backend", func(s *Server) { s.Passthrough.Backend = "" }, "passthrough.backend"},
		{"backend with a directive", func(s *Server) { s.Passthrough.Backend = "a; load_module x" }, "passthrough.backend"},
		{"own certificate", func(s *Server) { s.TLS = &ServerTLS{Certificate: "tls"} }, "passthrough"},
		{"client verification", func(s *Server) {
			s.TLS = nil
			s.ClientTLS = &ClientTLS{CACertificate: "ca"}
		}, "clientTLS"},
		{"catch-all", func(s *Server) { s.Hostnames = []string{CatchAllHostname} }, "hostnames[0]"},
	} {
		s := passthroughServer("cd", "cd.example.com")
		tc.change(s)
		err := s.Validate()
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: Validate = %v, want nil", tc.name, err)
			}
			continue
		}
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Field != tc.wantErr {
			t.Errorf("%s: Validate = %v, want an error on %s", tc.name, err, tc.wantErr)
		}
	}
}

// TestPassthroughState: the backend must exist and stays while a server passes to it;
// a hostname is passed one way only; realIPFrom and passthrough do not go together.
func TestPassthroughState(t *testing.T) {
	st := NewState()
	st.Backends["web"] = &Backend{Name: "web"}
	st.Servers["cd"] = passthroughServer("cd", "cd.test")
	if err := st.Check([]Ref{{KindServer, "cd"}}); err == nil || !strings.Contains(err.Error(), `backend "argocd" does not exist`) {
		t.Fatalf("passthrough to a missing backend: %v", err)
	}
	st.Backends["argocd"] = &Backend{Name: "argocd"}
	if err := st.Check([]Ref{{KindServer, "cd"}}); err != nil {
		t.Fatalf("passthrough to its backend: %v", err)
	}
	delete(st.Backends, "argocd")
	if err := st.Check([]Ref{{KindBackend, "argocd"}}); err == nil || !strings.Contains(err.Error(), `server "cd"`) {
		t.Fatalf("deleting a passthrough backend: %v, want a conflict naming server cd", err)
	}
	st.Backends["argocd"] = &Backend{Name: "argocd"}

	// A terminating server on the same hostname would never present its certificate.
	st.Certificates["tls"] = &Certificate{Name: "tls"}
	other := &Server{Name: "site", Hostnames: []string{"cd.test"}, TLS: &ServerTLS{Certificate: "tls"},
		Locations: []Location{{Path: "/site", Backend: "web"}}}
	st.Servers["site"] = other
	for _, touched := range []string{"cd", "site"} {
		err := st.Check([]Ref{{KindServer, touched}})
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Code != EConflict || e.Field != "passthrough" {
			t.Errorf("a terminating server beside a passthrough one, writing %s: %v, want a conflict on passthrough", touched, err)
		}
	}
	other.TLS, other.Passthrough = nil, &Passthrough{Backend: "argocd"}
	if err := st.Check([]Ref{{KindServer, "site"}}); err != nil {
		t.Errorf("the same passthrough on a shared hostname: %v", err)
	}
	delete(st.Servers, "site")

	st.Settings.RealIPFrom = []string{"10.0.0.0/8"}
	if err := st.Check([]Ref{{KindServer, "cd"}}); err == nil || !strings.Contains(err.Error(), "realIPFrom") {
		t.Errorf("passthrough with realIPFrom: %v, want it refused", err)
	}
}
