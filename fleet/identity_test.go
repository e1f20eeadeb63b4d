package fleet

import (
	"net/http"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestAgentIDPersists: an agent keeps its identity across restarts in its data dir, two
// data dirs make two identities, and its requests carry it.
func TestAgentIDPersists(t *testing.T) {
	dir := t.TempDir()
	load := func(dir string) *Follower {
		f, err := New(Options{ControlPlane: "http://127.0.0.1:9180", Token: "x", Name: "edge", DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Load(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b, other := load(dir), load(dir), load(t.TempDir())
	if !api.ValidAgentID(a.id) || a.id != b.id || a.id == other.id {
		t.Fatalf("ids %q, %q (same dir) and %q (another), want one valid id per dir", a.id, b.id, other.id)
	}
	req, _ := http.NewRequest("GET", "http://127.0.0.1:9180/api/v1/feed", nil)
	a.authorize(req, "cred")
	if got := req.Header.Get(api.AgentIDHeader); got != a.id || req.Header.Get("Authorization") != "Bearer cred" {
		t.Fatalf("request headers %v, want the credential and id %q", req.Header, a.id)
	}
}
