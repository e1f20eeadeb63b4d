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
