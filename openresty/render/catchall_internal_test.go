package render

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestReachability: a block that names only "_" and is not the default server answers no
// request, and the view that holds it is refused; so is a view of two default servers.
func TestReachability(t *testing.T) {
	sv := serverView{Name: "k8s._default", Hostnames: []string{api.CatchAllHostname}}
	if sv.reachable() {
		t.Fatal(`a block named only "_" counts as reachable without being the default server`)
	}
	servers := []api.Server{{Name: "k8s._default"}}
	err := checkReachable(&confView{Servers: []serverView{sv}}, servers, map[string]bool{"k8s._default": sv.reachable()})
	if err == nil || !strings.Contains(err.Error(), `server "k8s._default": no request can reach it`) {
		t.Fatalf("checkReachable = %v, want the server refused as unreachable", err)
	}
	markCatchAll(&sv)
	if !sv.Default || !sv.reachable() {
		t.Fatalf("after markCatchAll: %+v, want the default server", sv)
	}
	if err := checkReachable(&confView{Servers: []serverView{sv}}, servers, map[string]bool{"k8s._default": true}); err != nil {
		t.Fatalf("checkReachable of the catch-all = %v", err)
	}
	if err := checkReachable(&confView{Servers: []serverView{sv, sv}}, nil, nil); err == nil {
		t.Fatal("two default servers were accepted")
	}
	named := serverView{Name: "mixed", Hostnames: []string{"shop.test", api.CatchAllHostname}}
	markCatchAll(&named)
	if got := strings.Join(named.Hostnames, " "); got != "_ shop.test" {
		t.Fatalf("hostnames = %q, want the catch-all first (the $host of a request without Host)", got)
	}
}
