package render_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestForwardingBehindThePassthroughRouter: requests that come through the passthrough
// router have no port of their own and come from the router's unix socket, so the
// X-Forwarded-Port that useForwardedHeaders fills in names the TLS port and the address
// appended to X-Forwarded-For is the client's (from the PROXY protocol), while a
// proxySetHeaders value is sent as written.
func TestForwardingBehindThePassthroughRouter(t *testing.T) {
	ar := readArchive(t, filepath.Join("testdata", "render", "passthrough.txtar"))
	cfg := goldenConfig(t, ar.file(t, "config.json"))
	cfg.Settings.UseForwardedHeaders = true
	cfg.Settings.ProxySetHeaders = []api.ProxyHeader{{Name: "X-Port", Value: "$server_port"}}
	conf, err := render.Conf(cfg, goldenOptions)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for _, want := range []string{
		"map $http_x_forwarded_port $rp_forwarded_port {\n        default $http_x_forwarded_port;\n        \"\" $rp_server_port;\n    }",
		`proxy_set_header X-Forwarded-Port $rp_forwarded_port;`,
		"map $http_x_forwarded_for $rp_forwarded_for {\n        default \"$http_x_forwarded_for, $remote_addr\";\n        \"\" $remote_addr;\n    }",
		`proxy_set_header "X-Port" "$server_port";`,
	} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("the conf lacks %q", want)
		}
	}
}
