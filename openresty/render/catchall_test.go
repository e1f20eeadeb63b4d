package render_test

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// TestRenderCatchAllIsTheDefaultServer: the catch-all's block, not a block of its own,
// is the default server; "_" is its first name.
func TestRenderCatchAllIsTheDefaultServer(t *testing.T) {
	root := []api.Location{{Path: "/", Match: api.MatchPrefix, Backend: "all"}}
	cfg := api.Config{Settings: api.DefaultSettings(), Backends: []api.Backend{{Name: "all"}}, Servers: []api.Server{
		{Name: "catchall", Hostnames: []string{api.CatchAllHostname}, Locations: root},
		{Name: "shop", Hostnames: []string{"shop.test"}, Locations: root}}}
	cfg.Settings.WorkerProcesses = 2
	conf, err := render.Conf(cfg, fuzzOptions)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := tokenize(string(conf))
	if err != nil {
		t.Fatal(err)
	}
	var listens, names []string
	for _, s := range stmts {
		switch s.name {
		case "listen":
			listens = append(listens, strings.Join(s.args, " "))
		case "server_name":
			names = append(names, strings.Join(s.args, " "))
		}
	}
	wantListens := "unix:/srv/restyplane/admin/admin.sock," + // the admin endpoint
		"127.0.0.1:8080 default_server,127.0.0.1:8443 ssl http2 default_server," + // the catch-all
		"127.0.0.1:8080" // shop.test
	if got := strings.Join(listens, ","); got != wantListens {
		t.Fatalf("listen = %s, want %s", got, wantListens)
	}
	if got, want := strings.Join(names, ","), "_,shop.test"; got != want {
		t.Fatalf("server_name = %s, want %s", got, want)
	}
}
