package fleet

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// followLog runs a follower against a control plane of handler until its log holds want,
// and returns the log. The control plane lets the agent join unless joins says otherwise.
func followLog(t *testing.T, handler http.HandlerFunc, want string) string {
	t.Helper()
	return followLogJoin(t, nil, handler, want)
}

// followLogJoin is followLog with join answering the agent's join; nil lets it join.
func followLogJoin(t *testing.T, join, handler http.HandlerFunc, want string) string {
	t.Helper()
	if join == nil {
		join = func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"instance":"edge","secret":"cred"}`))
		}
	}
	cp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/join") {
			join(w, r)
			return
		}
		handler(w, r)
	}))
	defer cp.Close()
	var logs rptest.LockedBuffer
	f, err := New(Options{ControlPlane: cp.URL + "/", Token: "x", Name: "edge", DataDir: t.TempDir(), ReportEvery: time.Hour,
		ReadTimeout: 300 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	defer func() {
		cancel()
		cp.CloseClientConnections()
		<-done
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return logs.String()
}

// TestFeedRefusalIsAnError: another instance's credential, a revoked one or a wrong URL is
// logged as an error that says which, with the URL asked, and so is a join token that the
// control plane refuses; a control plane that falls silent is a warning that says so, not
// "context canceled".
func TestFeedRefusalIsAnError(t *testing.T) {
	for status, hint := range map[int]string{
		http.StatusForbidden:    "not this instance's",
		http.StatusUnauthorized: "revoked or the instance forgotten",
		http.StatusNotFound:     "without /api/v1",
	} {
		log := followLog(t, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"code":"x"}}`, status)
		}, hint)
		if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "/api/v1/feed?instance=edge") {
			t.Errorf("answer %d logged %q, want an error naming the URL", status, log)
		}
	}
	for status, hint := range map[int]string{
		http.StatusUnauthorized: "check --token",
		http.StatusForbidden:    "must be a join token",
	} {
		log := followLogJoin(t, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"code":"x"}}`, status)
		}, func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("the agent asked %s without a credential", r.URL)
		}, hint)
		if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "/api/v1/instances/edge/join") {
			t.Errorf("join answer %d logged %q, want an error naming the URL", status, log)
		}
	}
	log := followLog(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers nothing, as a paused control plane
	}, "taken for dead")
	if !strings.Contains(log, "level=WARN") || strings.Contains(log, "context canceled") {
		t.Errorf("a silent control plane logged %q", log)
	}
}

// TestCAFileNeedsHTTPS: a CA file with an http:// control plane is refused, since the
// token would go in clear whatever the file says.
func TestCAFileNeedsHTTPS(t *testing.T) {
	_, err := New(Options{ControlPlane: "http://cp:9180", Token: "x", Name: "edge", DataDir: t.TempDir(), CAFile: "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "https://") {
		t.Fatalf("New with a CA file and http:// = %v, want a refusal naming https://", err)
	}
}
