package openresty

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestTracedServers maps nginx's own error texts back to the servers of a real render.
func TestTracedServers(t *testing.T) {
	cfg := api.Config{Settings: api.DefaultSettings(), Backends: []api.Backend{{Name: "b"}},
		Certificates: []api.Certificate{{Name: "c"}}, Servers: []api.Server{
			{Name: "a", Hostnames: []string{"a.test"}, Locations: []api.Location{{Path: "/", Backend: "b"}}},
			{Name: "b1", Hostnames: []string{"b.test"}, Locations: []api.Location{{Path: "/x", Backend: "b"}}},
			{Name: "b2", Hostnames: []string{"b.test"}, Locations: []api.Location{{Path: "/y", Backend: "b"}}},
			{Name: "t", Hostnames: []string{"t.test"}, TLS: &api.ServerTLS{Certificate: "c"},
				Locations: []api.Location{{Path: "/", Backend: "b"}}},
		}}
	conf, err := render.Conf(cfg, render.Options{Prefix: "/p", ProxyListen: "127.0.0.1:80", TLSListen: "127.0.0.1:443"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(conf), "\n")
	lineOf := func(text string) int {
		t.Helper()
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, text) })
		if i < 0 {
			t.Fatalf("%q is not in the conf:\n%s", text, conf)
		}
		return i + 1
	}
	state := api.NewState()
	for i := range cfg.Servers {
		state.Servers[cfg.Servers[i].Name] = &cfg.Servers[i]
	}
	emerg := func(line int) error {
		return fmt.Errorf(`nginx -t: 2026/01/01 [emerg] 1#1: host not found in upstream "x" in /p/confs/test-1/nginx.conf:%d`, line)
	}
	for _, c := range []struct {
		name string
		err  error
		want []string
	}{
		{"a location of one server", emerg(lineOf(`server_name "a.test"`) + 3), []string{"a"}},
		{"a block that two servers share", emerg(lineOf(`"b.test"`)), []string{"b1", "b2"}},
		{"outside every server", emerg(lineOf("worker_processes")), nil},
		{"a certificate's key", errors.New(`nginx -t: [emerg] 7#7: SSL_CTX_use_PrivateKey("/p/confs/test-2/certs/c.key") failed (SSL: key values mismatch)`), []string{"t"}},
		{"a render error", &render.ServerError{Server: "b2", Err: errors.New("htpasswd gone")}, []string{"b2"}},
		{"no line", errors.New(`nginx: [emerg] unexpected "}"`), nil},
	} {
		if got := tracedServers(c.err, conf, state); !slices.Equal(got, c.want) {
			t.Errorf("%s: traced %v, want %v", c.name, got, c.want)
		}
	}
}
