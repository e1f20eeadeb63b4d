package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// TestMetrics labels requests by route pattern, never by raw path, and exports the head.
func TestMetrics(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/backends/shop", token: e.viewer})
	e.must(http.StatusNotFound, req{method: "GET", path: "/api/v1/backends/no-such-backend-1234", token: e.viewer})
	res := e.must(http.StatusOK, req{method: "GET", path: "/metrics"})
	body := string(res.body)
	for _, want := range []string{
		`restyplane_http_requests_total{code="200",method="GET",route="/api/v1/backends/{name}"} 1`,
		`restyplane_http_requests_total{code="404",method="GET",route="/api/v1/backends/{name}"} 1`,
		`restyplane_http_requests_total{code="201",method="POST",route="/api/v1/backends"} 1`,
		`restyplane_head_revision 1`,
		`restyplane_store_write_duration_seconds_count{op="write",outcome="success"} 1`,
		`restyplane_http_request_duration_seconds_bucket{method="GET",route="/api/v1/backends/{name}",le="+Inf"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, "no-such-backend-1234") {
		t.Fatalf("/metrics holds a raw path")
	}
}

// TestOperationalEndpoints covers health, readiness, the swagger UI and spec, JSON errors
// for unknown routes, request ids and /status without an applier.
func TestOperationalEndpoints(t *testing.T) {
	e := newEnv(t)
	e.must(http.StatusOK, req{method: "GET", path: "/healthz"})
	e.must(http.StatusOK, req{method: "GET", path: "/readyz"})

	res := e.must(http.StatusOK, req{method: "GET", path: "/swagger/doc.json"})
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	res.into(t, &spec)
	for _, p := range []string{"/api/v1/backends/{name}/endpoints", "/api/v1/config", "/api/v1/revisions/{id}/rollback", "/api/v1/tokens"} {
		if spec.Paths[p] == nil {
			t.Errorf("swagger spec lacks %s", p)
		}
	}
	res = e.must(http.StatusOK, req{method: "GET", path: "/swagger/index.html"})
	if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Fatalf("swagger CSP = %q", csp)
	}
	// The swagger UI's short addresses lead to its page.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/swagger", "/swagger/"} {
		r, err := noFollow.Get(e.ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/swagger/index.html" {
			t.Errorf("GET %s = %d to %q, want 301 to /swagger/index.html", p, r.StatusCode, r.Header.Get("Location"))
		}
	}

	res = e.must(http.StatusNotFound, req{method: "GET", path: "/api/v1/nothing", token: e.viewer})
	checkErrorBody(t, res)
	res = e.must(http.StatusMethodNotAllowed, req{method: "DELETE", path: "/api/v1/config", token: e.admin})
	checkErrorBody(t, res)

	res = e.must(http.StatusOK, req{method: "GET", path: "/api/v1/whoami", token: e.viewer, header: map[string]string{"X-Request-Id": "trace-42"}})
	if got, want := res.header.Get("X-Request-Id"), "trace-42"; got != want {
		t.Fatalf("X-Request-Id = %q, want %q", got, want)
	}
	res = e.must(http.StatusOK, req{method: "GET", path: "/api/v1/whoami", token: e.viewer, header: map[string]string{"X-Request-Id": "bad id;"}})
	if got := res.header.Get("X-Request-Id"); got == "" || got == "bad id;" {
		t.Fatalf("X-Request-Id = %q, want a fresh id", got)
	}
	if got, want := res.header.Get("Cache-Control"), "no-store"; got != want {
		t.Fatalf("API Cache-Control = %q, want %q", got, want)
	}

	var st api.Status
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/status", token: e.viewer}).into(t, &st)
	if st.State != "off" || st.Applied != 0 || st.InSync {
		t.Fatalf("status without applier = %+v, want off, applied 0, not in sync", st)
	}
	var applies server.ApplyList
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/applies", token: e.viewer}).into(t, &applies)
	if applies.Items == nil {
		t.Fatalf("applies = null, want a list")
	}
}

// TestUI serves the web UI's files under a strict Content-Security-Policy.
func TestUI(t *testing.T) {
	ui := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>restyplane</title>")}, "js/app.js": {Data: []byte("export {}")}}
	e := newEnvWith(t, options{server.Options{UI: ui}})
	res := e.must(http.StatusOK, req{method: "GET", path: "/"})
	if !strings.Contains(string(res.body), "<title>restyplane</title>") {
		t.Fatalf("GET / = %s, want the UI", res.body)
	}
	csp := res.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Fatalf("UI CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("UI CSP %q allows inline script", csp)
	}
	e.must(http.StatusOK, req{method: "HEAD", path: "/"})
	res = e.must(http.StatusOK, req{method: "GET", path: "/js/app.js"})
	if got := res.header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Fatalf("X-Content-Type-Options = %q, want nosniff", got)
	}
	// The API stays the API.
	e.must(http.StatusUnauthorized, req{method: "GET", path: "/api/v1/backends"})
}

// TestEvents streams a revision event at once and at each new head.
func TestEvents(t *testing.T) {
	e := newEnv(t)
	hr, err := http.NewRequestWithContext(t.Context(), "GET", e.ts.URL+"/api/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+e.viewer)
	res, err := e.ts.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got, want := res.Header.Get("Content-Type"), "text/event-stream"; got != want {
		t.Fatalf("Content-Type = %q, want %q", got, want)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				lines <- sc.Text()
			}
		}
		close(lines)
	}()
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
		return ""
	}
	if got, want := next(), `data: {"head":0}`; got != want {
		t.Fatalf("first event = %q, want %q", got, want)
	}
	e.must(http.StatusCreated, req{method: "POST", path: "/api/v1/backends", token: e.editor, body: backend("shop", 8080)})
	if got, want := next(), `data: {"head":1}`; got != want {
		t.Fatalf("event after a write = %q, want %q", got, want)
	}
	// Close ends the stream, as a graceful shutdown does.
	e.srv.Close()
	select {
	case _, ok := <-lines:
		if ok {
			t.Fatal("an event after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived Close by 10s")
	}
}

// TestInternalErrors shows a client a generic message with the request id, and logs the
// cause once under that id. The failure is real: the database is closed under the server.
func TestInternalErrors(t *testing.T) {
	var log syncBuffer
	e := newEnvWith(t, options{server.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}})
	e.must(http.StatusOK, req{method: "GET", path: "/readyz"})
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	res := e.must(http.StatusInternalServerError, req{method: "GET", path: "/api/v1/revisions", token: e.viewer,
		header: map[string]string{"X-Request-Id": "req-500"}})
	checkErrorBody(t, res)
	if strings.Contains(string(res.body), "closed") || !strings.Contains(string(res.body), "req-500") {
		t.Fatalf("internal error body = %s, want a generic message with the request id", res.body)
	}
	logged := log.String()
	if got, want := strings.Count(logged, "requestId=req-500"), 1; got != want {
		t.Fatalf("log mentions the request %d times, want %d:\n%s", got, want, logged)
	}
	if !strings.Contains(logged, "closed") {
		t.Fatalf("log lacks the cause:\n%s", logged)
	}
	checkErrorBody(t, e.must(http.StatusServiceUnavailable, req{method: "GET", path: "/readyz"}))
}

// syncBuffer is a bytes.Buffer that the server's goroutines may write concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
