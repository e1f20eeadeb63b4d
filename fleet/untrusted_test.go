package fleet

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
)

// TestPlainHTTPOnlyOnLoopback: an http:// control plane off this machine is refused unless
// the network is said to be trusted; loopback and https:// need nothing.
func TestPlainHTTPOnlyOnLoopback(t *testing.T) {
	for cp, ok := range map[string]bool{
		"http://cp.example:9180": false, "http://10.0.0.5:9180": false,
		"http://127.0.0.1:9180": true, "http://localhost:9180": true, "http://[::1]:9180": true,
		"https://cp.example:9180": true,
	} {
		_, err := New(Options{ControlPlane: cp, Token: "x", Name: "edge", DataDir: t.TempDir()})
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "--trusted-network")) {
			t.Errorf("New(%s) = %v, want allowed %v", cp, err, ok)
		}
		if _, err := New(Options{ControlPlane: cp, Token: "x", Name: "edge", DataDir: t.TempDir(), TrustedNetwork: true}); err != nil {
			t.Errorf("New(%s) on a trusted network = %v", cp, err)
		}
	}
}

// feedOf runs a follower against a control plane that lets it join and then streams lines,
// until its log holds want; it returns the follower, stopped.
func feedOf(t *testing.T, o Options, lines []string, want string) (*Follower, string) {
	t.Helper()
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/join") {
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"instance":"edge","secret":"cred"}`))
			return
		}
		if r.URL.Path != "/api/v1/feed" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		for _, l := range lines {
			w.Write([]byte(l + "\n"))
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	defer cp.Close()
	var logs rptest.LockedBuffer
	o.ControlPlane, o.Token, o.Name, o.DataDir = cp.URL, "x", "edge", t.TempDir()
	o.ReportEvery, o.MinBackoff, o.MaxBackoff = time.Hour, time.Hour, time.Hour
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	cp.CloseClientConnections()
	<-done
	return f, logs.String()
}

func line(t *testing.T, m api.FeedMessage) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFeedLineIsCapped: a line longer than MaxLine ends the stream without being held;
// the agent keeps what it had.
func TestFeedLineIsCapped(t *testing.T) {
	big := api.FeedMessage{Type: api.FeedSnapshot, Revision: 7, History: "h1",
		Backends: []api.Backend{{Name: "a", LoadBalance: strings.Repeat("x", 2<<20)}}}
	f, _ := feedOf(t, Options{MaxLine: 1 << 20}, []string{line(t, big)}, "longer than 1048576 bytes")
	if rev := f.Head().Revision; rev != 0 {
		t.Fatalf("head = %d after a line over the cap, want 0", rev)
	}
}

// TestRevisionsOnlyMoveForward: within one history, a state older than the one held is
// not taken; a snapshot of another history is, and the agent says the history was
// replaced.
func TestRevisionsOnlyMoveForward(t *testing.T) {
	five := api.FeedMessage{Type: api.FeedSnapshot, Revision: 5, History: "h1", Backends: []api.Backend{{Name: "five"}}}
	three := api.FeedMessage{Type: api.FeedSnapshot, Revision: 3, History: "h1", Backends: []api.Backend{{Name: "three"}}}
	f, _ := feedOf(t, Options{}, []string{line(t, five), line(t, three)}, "older revision")
	if h := f.Head(); h.Revision != 5 || h.Backends["five"] == nil {
		t.Fatalf("head = %d %v, want revision 5 kept", h.Revision, h.Backends)
	}
	other := api.FeedMessage{Type: api.FeedSnapshot, Revision: 2, History: "h2", Backends: []api.Backend{{Name: "other"}}}
	f, logs := feedOf(t, Options{}, []string{line(t, five), line(t, other)}, "history was replaced")
	if h := f.Head(); h.Revision != 2 || h.Backends["other"] == nil {
		t.Fatalf("head = %d %v, want the other history's revision 2:\n%s", h.Revision, h.Backends, logs)
	}
}
