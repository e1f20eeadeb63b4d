package api

import (
	"strings"
	"testing"
)

// TestServerPortsValidate: ports are 1-65535 or 0 for the instance's, plain apart from
// HTTPS, and not with what only the instance's own ports serve.
func TestServerPortsValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		srv   Server
		field string
	}{
		{"plain port", Server{Port: 8080}, ""},
		{"both ports", Server{Port: 8080, TLS: &ServerTLS{DefaultCertificate: true, Port: 8443}}, ""},
		{"tls port only", Server{TLS: &ServerTLS{DefaultCertificate: true, Port: 8443}}, ""},
		{"port 65536", Server{Port: 65536}, "port"},
		{"negative port", Server{Port: -80}, "port"},
		{"tls port 0x10000", Server{TLS: &ServerTLS{DefaultCertificate: true, Port: 0x10000}}, "tls.port"},
		{"one port for both", Server{Port: 8080, TLS: &ServerTLS{DefaultCertificate: true, Port: 8080}}, "tls.port"},
		{"www redirect", Server{Port: 8080, WWWRedirect: true}, "wwwRedirect"},
		{"passthrough", Server{Port: 8080, Passthrough: &Passthrough{Backend: "b"}}, "passthrough"},
		{"catch-all on its own port", Server{Hostnames: []string{"_"}, Port: 8080}, ""},
		{"catch-all on the default plain port", Server{Hostnames: []string{"_"}, TLS: &ServerTLS{DefaultCertificate: true, Port: 8443}}, "port"},
		{"catch-all on the default HTTPS port", Server{Hostnames: []string{"_"}, Port: 8080, TLS: &ServerTLS{DefaultCertificate: true}}, "port"},
	} {
		s := c.srv
		s.Name = "s"
		if s.Hostnames == nil {
			s.Hostnames = []string{"s.test"}
		}
		s.Locations = []Location{{Path: "/", Backend: "b"}}
		s.Normalize()
		err := s.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), " "+c.field+":")):
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.field)
		}
	}
}

// TestPortClaims: servers may share a hostname and path on different ports; on one port
// they share a block and its HTTPS port; a port is plain or HTTPS for every server.
func TestPortClaims(t *testing.T) {
	tls := func(port int) *ServerTLS { return &ServerTLS{DefaultCertificate: true, Port: port} }
	srv := func(name string, port int, t *ServerTLS) *Server {
		return &Server{Name: name, Hostnames: []string{"foo.test"}, Port: port, TLS: t, Locations: []Location{{Path: "/", Backend: "b"}}}
	}
	for _, c := range []struct {
		name string
		a, b *Server
		want string // "" for no conflict
	}{
		{"one path on two ports", srv("a", 0, nil), srv("b", 8080, nil), ""},
		{"one path on one port", srv("a", 8080, nil), srv("b", 8080, nil), `host "foo.test" prefix path "/" is already claimed`},
		{"two ports with their own HTTPS ports", srv("a", 0, tls(0)), srv("b", 8080, tls(8443)), ""},
		{"two ports, one HTTPS port", srv("a", 0, tls(8443)), srv("b", 8080, tls(8443)), "need different HTTPS ports"},
		{"one port, two HTTPS ports", srv("a", 8080, tls(0)), srv("b", 8080, tls(8443)), "share its HTTPS port"},
		{"a plain port another's HTTPS port", srv("a", 8443, nil), &Server{Name: "b", Hostnames: []string{"bar.test"}, TLS: tls(8443), Locations: []Location{{Path: "/", Backend: "b"}}}, `port 8443 is server "a"'s plain-HTTP port`},
	} {
		c.b.Locations[0].Path = "/"
		st := &State{Backends: map[string]*Backend{"b": {Name: "b"}}, Servers: map[string]*Server{"a": c.a, "b": c.b}}
		err := st.Check([]Ref{{KindServer, "b"}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no conflict", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a conflict saying %s", c.name, err, c.want)
		}
	}
}
