package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestRenderH2CRouterOnlyWhereGRPC: the h2c router and njs come with a server that passes
// to a gRPC backend, on that server's plain port alone; a config without one renders no
// stream block; with realIPFrom, whose header would name a router's address, the gRPC
// server is refused by name.
func TestRenderH2CRouterOnlyWhereGRPC(t *testing.T) {
	backends := []api.Backend{{Name: "web"}, {Name: "rpc", Protocol: api.ProtocolGRPC}}
	srv := func(name string, port int, backend string) api.Server {
		return api.Server{Name: name, Hostnames: []string{name + ".test"}, Port: port,
			Locations: []api.Location{{Path: "/", Backend: backend}}}
	}
	opts := fuzzOptions
	opts.StreamJSModule = "/usr/lib/nginx/modules/ngx_stream_js_module.so"
	render1 := func(s api.Settings, servers ...api.Server) (string, error) {
		conf, err := render.Conf(api.Config{Settings: s, Servers: servers, Backends: backends}, opts)
		return string(conf), err
	}
	conf, err := render1(api.DefaultSettings(), srv("web", 0, "web"), srv("other", 9000, "web"))
	if err != nil || strings.Contains(conf, "\nstream {") || strings.Contains(conf, "ngx_stream_js_module") {
		t.Fatalf("no gRPC server: err %v, or a stream block or njs in:\n%s", err, conf)
	}
	conf, err = render1(api.DefaultSettings(), srv("web", 0, "web"), srv("rpc", 9000, "rpc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`load_module "/usr/lib/nginx/modules/ngx_stream_js_module.so";`,
		"listen \"" + opts.ProxyListen + "\" default_server;", `listen "127.0.0.1:9000";` + "\n        js_preread rp_h2c.preread;",
		`h2c-0-http2.sock" proxy_protocol http2 default_server;`} {
		if !strings.Contains(conf, want) {
			t.Errorf("a gRPC server on port 9000: no %q in:\n%s", want, conf)
		}
	}
	if n := strings.Count(conf, "js_preread"); n != 1 {
		t.Errorf("%d routers, want the one of port 9000", n)
	}
	s := api.DefaultSettings()
	s.RealIPFrom = []string{"10.0.0.0/8"}
	_, err = render1(s, srv("web", 0, "web"), srv("rpc", 0, "rpc"))
	var se *render.ServerError
	if !errors.As(err, &se) || se.Server != "rpc" || !strings.Contains(err.Error(), "realIPFrom") {
		t.Fatalf("gRPC on a plain port with realIPFrom: %v, want the server refused naming realIPFrom", err)
	}
}

// TestRenderH2CBesidePassthroughSizesMapsFirst: with both stream routers, the map sizes
// passthrough sets come before the h2c router's map. nginx settles them at the first map
// of the block and refuses a later map_hash_bucket_size as duplicate, which refused every
// revision that had both (the real-Ingress corpus has both).
func TestRenderH2CBesidePassthroughSizesMapsFirst(t *testing.T) {
	backends := []api.Backend{{Name: "web"}, {Name: "rpc", Protocol: api.ProtocolGRPC}}
	opts := fuzzOptions
	opts.StreamJSModule = "/usr/lib/nginx/modules/ngx_stream_js_module.so"
	cfg := api.Config{Settings: api.DefaultSettings(), Backends: backends, Servers: []api.Server{
		{Name: "rpc", Hostnames: []string{"rpc.test"}, Locations: []api.Location{{Path: "/", Backend: "rpc"}}},
		{Name: "argocd", Hostnames: []string{"argocd.test"}, Passthrough: &api.Passthrough{Backend: "web"},
			Locations: []api.Location{{Path: "/", Backend: "web"}}}}}
	conf, err := render.Conf(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	stream := string(conf[strings.Index(string(conf), "\nstream {"):])
	size, firstMap := strings.Index(stream, "map_hash_bucket_size"), strings.Index(stream, "\n    map ")
	if size < 0 || firstMap < 0 || size > firstMap || strings.Count(stream, "map_hash_bucket_size") != 1 {
		t.Fatalf("map_hash_bucket_size at %d, the first map at %d, want it once and before every map in:\n%s", size, firstMap, stream)
	}
}

// TestRenderH2CRouterNeverTimesOutFirst: the router passes bytes on and knows nothing of
// what they carry, so it must never end a connection that nginx's http side keeps, a
// WebSocket or a gRPC stream that a location's read timeout lets stay silent for hours:
// its proxy_timeout (10 minutes unless set) is longer than any duration the API accepts.
func TestRenderH2CRouterNeverTimesOutFirst(t *testing.T) {
	backends := []api.Backend{{Name: "rpc", Protocol: api.ProtocolGRPC, Timeouts: &api.Timeouts{Read: "999999h"}}}
	opts := fuzzOptions
	opts.StreamJSModule = "/usr/lib/nginx/modules/ngx_stream_js_module.so"
	conf, err := render.Conf(api.Config{Settings: api.DefaultSettings(), Backends: backends, Servers: []api.Server{
		{Name: "rpc", Hostnames: []string{"rpc.test"}, Locations: []api.Location{{Path: "/", Backend: "rpc"}}}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if api.ValidDuration("read", "999999h") != nil || api.ValidDuration("read", "1000000h") == nil {
		t.Fatal("the longest duration the API accepts is no longer 999999h")
	}
	stream := string(conf[strings.Index(string(conf), "\nstream {"):])
	if want := "\n        proxy_timeout 1000000h;"; !strings.Contains(stream, want) {
		t.Fatalf("no %q in the router:\n%s", want, stream)
	}
}

// TestRenderH2CRouterAtAServersAddress: a gRPC server at an address of its own (a
// Gateway's) gets its router on that address, where its clients connect, and the
// servers at that address listen behind it.
func TestRenderH2CRouterAtAServersAddress(t *testing.T) {
	backends := []api.Backend{{Name: "rpc", Protocol: api.ProtocolGRPC}}
	opts := fuzzOptions
	opts.StreamJSModule = "/usr/lib/nginx/modules/ngx_stream_js_module.so"
	srv := api.Server{Name: "rpc", Hostnames: []string{"rpc.test"}, Address: "127.214.1.5",
		Locations: []api.Location{{Path: "/", Backend: "rpc"}}}
	conf, err := render.Conf(api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: backends}, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(opts.ProxyListen, ":")
	if want := `listen "127.214.1.5:` + port + `";` + "\n        js_preread rp_h2c.preread;"; !strings.Contains(string(conf), want) {
		t.Errorf("no router at the server's address (%q) in:\n%s", want, conf)
	}
	if strings.Contains(string(conf), `listen "127.214.1.5:`+port+`" default_server;`) {
		t.Errorf("the server's address is listened on by http as well as by the router:\n%s", conf)
	}
}
