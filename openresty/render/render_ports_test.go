package render_test

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestRenderRefusesPorts: a server's own port may not be one the instance has for the
// other scheme or keeps for itself, nor be plain for one block and HTTPS for another; a
// mirror speaks HTTP. Each refusal names the server, which the applier then leaves out.
func TestRenderRefusesPorts(t *testing.T) {
	root := []api.Location{{Path: "/", Backend: "b"}}
	tls := func(port int) *api.ServerTLS { return &api.ServerTLS{DefaultCertificate: true, Port: port} }
	for _, c := range []struct {
		name    string
		servers []api.Server
		reserve []int
		want    string
	}{
		{"the instance's HTTPS port as plain", []api.Server{{Name: "a", Hostnames: []string{"a.test"}, Port: 8443, Locations: root}}, nil,
			`server "a": port 8443 is the instance's HTTPS port`},
		{"the instance's plain port as HTTPS", []api.Server{{Name: "a", Hostnames: []string{"a.test"}, TLS: tls(8080), Port: 9000, Locations: root}}, nil,
			`server "a": HTTPS port 8080 is the instance's plain-HTTP port`},
		{"a reserved port", []api.Server{{Name: "a", Hostnames: []string{"a.test"}, Port: 9180, Locations: root}}, []int{9180},
			`server "a": port 9180 is kept for the instance's own use`},
		{"plain here, HTTPS there", []api.Server{
			{Name: "a", Hostnames: []string{"a.test"}, Port: 9000, Locations: root},
			{Name: "b", Hostnames: []string{"b.test"}, Port: 9001, TLS: tls(9000), Locations: root}}, nil,
			`port 9000 is another server's plain-HTTP port`},
		{"a gRPC mirror", []api.Server{{Name: "a", Hostnames: []string{"a.test"}, Locations: []api.Location{
			{Path: "/", Backend: "b", Mirror: []api.Mirror{{Backend: "g"}}}}}}, nil,
			`mirrors to backend "g", which speaks gRPC`},
	} {
		cfg := api.Config{Settings: api.DefaultSettings(), Servers: c.servers,
			Backends: []api.Backend{{Name: "b"}, {Name: "g", Protocol: api.ProtocolGRPC}}}
		opts := fuzzOptions
		opts.ReservedPorts = c.reserve
		if _, err := render.Conf(cfg, opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %s", c.name, err, c.want)
		}
	}
}

// TestRenderAddresses: a server's address is where its blocks listen, so moving it
// changes the conf (the applier reloads); an address that is the instance's own listen
// host is the instance's sockets; one socket is plain or HTTPS at each address.
func TestRenderAddresses(t *testing.T) {
	root := []api.Location{{Path: "/", Backend: "b"}}
	conf := func(servers ...api.Server) (string, error) {
		b, err := render.Conf(api.Config{Settings: api.DefaultSettings(), Servers: servers, Backends: []api.Backend{{Name: "b"}}}, fuzzOptions)
		return string(b), err
	}
	proxyHost := strings.Split(fuzzOptions.ProxyListen, ":")[0]
	a, err := conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Address: "127.214.1.1", Locations: root})
	if err != nil {
		t.Fatal(err)
	}
	b, err := conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Address: "127.214.1.2", Locations: root})
	if err != nil {
		t.Fatal(err)
	}
	if a == b || !strings.Contains(b, `listen "127.214.1.2:`) || strings.Contains(b, "127.214.1.1") {
		t.Errorf("moving a server from 127.214.1.1 to .2 did not move its listen directives:\n%s", b)
	}
	own, err := conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Address: proxyHost, Locations: root})
	plain, _ := conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Locations: root})
	if err != nil || own != plain {
		t.Errorf("a server at the instance's own host %s rendered other than at its sockets (%v)", proxyHost, err)
	}
	tls := &api.ServerTLS{DefaultCertificate: true, Port: 9000}
	_, err = conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Address: "127.214.1.1", Port: 9000, Locations: root},
		api.Server{Name: "b", Hostnames: []string{"b.test"}, Address: "127.214.1.1", Port: 9001, TLS: tls, Locations: root})
	if err == nil || !strings.Contains(err.Error(), "port 9000 at 127.214.1.1 is another server's plain-HTTP port") {
		t.Errorf("plain and HTTPS on one socket at an address: %v, want refused", err)
	}
	if _, err := conf(api.Server{Name: "a", Hostnames: []string{"a.test"}, Address: "127.214.1.1", Port: 9000, Locations: root},
		api.Server{Name: "b", Hostnames: []string{"b.test"}, Address: "127.214.1.2", Port: 9001, TLS: tls, Locations: root}); err != nil {
		t.Errorf("plain and HTTPS on one port at two addresses: %v, want served", err)
	}
}
