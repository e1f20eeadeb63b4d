package api

import (
	"strings"
	"testing"
)

// TestServerAddressValidate: a server's address is one canonical unicast IP, and a server
// at one has neither what only the instance's own sockets serve.
func TestServerAddressValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		srv   Server
		field string
	}{
		{"IPv4", Server{Address: "127.214.1.5"}, ""},
		{"IPv6", Server{Address: "fd00::5"}, ""},
		{"with its own ports", Server{Address: "127.214.1.5", Port: 8080, TLS: &ServerTLS{DefaultCertificate: true, Port: 8443}}, ""},
		{"catch-all on the instance's port numbers", Server{Address: "127.214.1.5", Hostnames: []string{"_"}, TLS: &ServerTLS{DefaultCertificate: true}}, ""},
		{"hostname", Server{Address: "gw.example.com"}, "address"},
		{"with a port", Server{Address: "127.214.1.5:80"}, "address"},
		{"a directive", Server{Address: "127.0.0.1; include /etc/passwd"}, "address"},
		{"unspecified", Server{Address: "0.0.0.0"}, "address"},
		{"IPv6 unspecified", Server{Address: "::"}, "address"},
		{"multicast", Server{Address: "224.0.0.1"}, "address"},
		{"zone", Server{Address: "fe80::1%eth0"}, "address"},
		{"not canonical", Server{Address: "FD00:0::5"}, "address"},
		{"IPv4-mapped", Server{Address: "::ffff:127.0.0.1"}, "address"},
		{"www redirect", Server{Address: "127.214.1.5", WWWRedirect: true}, "wwwRedirect"},
		{"passthrough", Server{Address: "127.214.1.5", Passthrough: &Passthrough{Backend: "b"}}, "passthrough"},
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

// TestAddressClaims: servers at two addresses may share a hostname and path, on the same
// port, with their own HTTPS ports and client certificates; at one address they claim
// as before.
func TestAddressClaims(t *testing.T) {
	srv := func(name, addr string, port int, tls *ServerTLS) *Server {
		return &Server{Name: name, Hostnames: []string{"foo.test"}, Address: addr, Port: port, TLS: tls,
			Locations: []Location{{Path: "/", Backend: "b"}}, Source: Source{Kind: SourceKubernetes}}
	}
	tls := func(port int) *ServerTLS { return &ServerTLS{DefaultCertificate: true, Port: port} }
	for _, c := range []struct {
		name string
		a, b *Server
		want string // "" for no conflict
	}{
		{"two addresses", srv("a", "127.214.1.1", 0, nil), srv("b", "127.214.1.2", 0, nil), ""},
		{"an address and the instance's", srv("a", "", 0, nil), srv("b", "127.214.1.2", 0, nil), ""},
		{"one address", srv("a", "127.214.1.1", 0, nil), srv("b", "127.214.1.1", 0, nil), "is already claimed"},
		{"one address, two ports", srv("a", "127.214.1.1", 0, nil), srv("b", "127.214.1.1", 8080, nil), ""},
		{"two addresses, their HTTPS ports", srv("a", "127.214.1.1", 0, tls(8443)), srv("b", "127.214.1.2", 0, tls(0)), ""},
		{"one address, two HTTPS ports", srv("a", "127.214.1.1", 8080, tls(0)), srv("b", "127.214.1.1", 8080, tls(8443)), "share its HTTPS port"},
		{"a plain port another address's HTTPS port", srv("a", "127.214.1.1", 9000, nil), &Server{Name: "b", Hostnames: []string{"bar.test"}, Address: "127.214.1.2", TLS: tls(9000), Locations: []Location{{Path: "/", Backend: "b"}}}, ""},
		{"a plain port the same address's HTTPS port", srv("a", "127.214.1.1", 9000, nil), &Server{Name: "b", Hostnames: []string{"bar.test"}, Address: "127.214.1.1", TLS: tls(9000), Locations: []Location{{Path: "/", Backend: "b"}}}, `port 9000 is server "a"'s plain-HTTP port`},
	} {
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
