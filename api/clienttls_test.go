package api

import (
	"errors"
	"strings"
	"testing"
)

func clientTLSServer(name, host string, c *ClientTLS) *Server {
	return &Server{Name: name, Hostnames: []string{host}, TLS: &ServerTLS{Certificate: "tls"}, ClientTLS: c,
		Locations: []Location{{Path: "/", Backend: "web"}}}
}

func TestClientTLSValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(s *Server)
		wantErr string // the field named; "" for valid
	}{
		{"defaults", func(s *Server) {}, ""},
		{"every field", func(s *Server) {
			s.ClientTLS = &ClientTLS{CACertificate: "ca", Verify: VerifyOptionalNoCA, Depth: 3,
				ErrorPage: "https://login.example.com/cert?from=proxy&x=1", PassCertificateToUpstream: true}
		}, ""},
		{"no tls", func(s *Server) { s.TLS = nil }, "clientTLS"},
		{"no CA", func(s *Server) { s.ClientTLS.CACertificate = "" }, "clientTLS.caCertificate"},
		{"CA name with a quote", func(s *Server) { s.ClientTLS.CACertificate = `ca"` }, "clientTLS.caCertificate"},
		{"unknown mode", func(s *Server) { s.ClientTLS.Verify = "require" }, "clientTLS.verify"},
		{"mode with a directive", func(s *Server) { s.ClientTLS.Verify = "on; root /" }, "clientTLS.verify"},
		{"depth too deep", func(s *Server) { s.ClientTLS.Depth = MaxVerifyDepth + 1 }, "clientTLS.depth"},
		{"negative depth", func(s *Server) { s.ClientTLS.Depth = -1 }, "clientTLS.depth"},
		{"error page with a variable", func(s *Server) { s.ClientTLS.ErrorPage = "https://x.test/$host" }, "clientTLS.errorPage"},
		{"error page with a space", func(s *Server) { s.ClientTLS.ErrorPage = "https://x.test/a b" }, "clientTLS.errorPage"},
		{"error page not http", func(s *Server) { s.ClientTLS.ErrorPage = "javascript:alert(1)" }, "clientTLS.errorPage"},
		{"error page relative", func(s *Server) { s.ClientTLS.ErrorPage = "/needed" }, "clientTLS.errorPage"},
		{"location sets ssl-client-verify", func(s *Server) {
			s.Locations[0].SetHeaders = []Header{{Name: "SSL-Client-Verify", Value: "SUCCESS"}}
		}, "locations[0].setHeaders[0].name"},
		{"auth answer sets ssl-client-cert", func(s *Server) {
			s.Locations[0].Auth = &LocationAuth{External: &ExternalAuth{URL: "http://auth.test/", ResponseHeaders: []string{"ssl-client-cert"}}}
		}, "locations[0].auth.external.responseHeaders[0]"},
	} {
		s := clientTLSServer("shop", "shop.test", &ClientTLS{CACertificate: "ca"})
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
	s := clientTLSServer("shop", "shop.test", &ClientTLS{CACertificate: "ca"})
	s.Normalize()
	if c := s.ClientTLS; c.Verify != VerifyOn || c.Depth != 1 {
		t.Errorf("Normalize: verify %q depth %d, want on and 1", c.Verify, c.Depth)
	}
}

// TestClientTLSState: the CA must exist and stays while a server names it; servers that
// share a hostname verify the same way.
func TestClientTLSState(t *testing.T) {
	st := NewState()
	st.Backends["web"] = &Backend{Name: "web"}
	st.Certificates["tls"] = &Certificate{Name: "tls"}
	st.Servers["a"] = clientTLSServer("a", "a.test", &ClientTLS{CACertificate: "ca"})
	if err := st.Check([]Ref{{KindServer, "a"}}); err == nil || !strings.Contains(err.Error(), `caCertificate "ca" does not exist`) {
		t.Fatalf("server naming a missing CA: %v", err)
	}
	st.CACertificates["ca"] = &CACertificate{Name: "ca"}
	if err := st.Check([]Ref{{KindServer, "a"}}); err != nil {
		t.Fatalf("server naming its CA: %v", err)
	}
	delete(st.CACertificates, "ca")
	if err := st.Check([]Ref{{KindCACertificate, "ca"}}); err == nil || !strings.Contains(err.Error(), `server "a"`) {
		t.Fatalf("deleting a CA in use: %v, want a conflict naming server a", err)
	}
	st.CACertificates["ca"] = &CACertificate{Name: "ca"}

	// Same hostname, other paths: the same clientTLS (defaults spelled out) is fine...
	b := clientTLSServer("b", "a.test", &ClientTLS{CACertificate: "ca", Verify: VerifyOn, Depth: 1})
	b.Locations[0].Path = "/b"
	st.Servers["b"] = b
	if err := st.Check([]Ref{{KindServer, "b"}}); err != nil {
		t.Fatalf("same clientTLS on a shared hostname: %v", err)
	}
	// ...another mode, or none, is not, whichever of the two is written.
	for _, c := range []*ClientTLS{{CACertificate: "ca", Verify: VerifyOptional}, nil} {
		b.ClientTLS = c
		for _, touched := range []string{"a", "b"} {
			err := st.Check([]Ref{{KindServer, touched}})
			var e *Error
			if err == nil || !errors.As(err, &e) || e.Code != EConflict || e.Field != "clientTLS" {
				t.Errorf("clientTLS %+v beside a's, writing %s: %v, want a conflict on clientTLS", c, touched, err)
			}
		}
		if err := st.Check([]Ref{{KindServer, "a"}, {KindServer, "b"}}); err == nil {
			t.Errorf("clientTLS %+v, both written at once: nil, want a conflict", c)
		}
	}
}
