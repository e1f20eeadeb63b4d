package nginx_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestAdminClientAsksForNoCompression: reads and pushes on the admin socket go without
// Accept-Encoding, so that nginx's http-level gzip does not compress answers that never
// leave the machine (a counter read per report cost a deflate and a gunzip each).
func TestAdminClientAsksForNoCompression(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "admin.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = r.Header.Get("Accept-Encoding")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			_, _ = w.Write([]byte(`{"skipped":[]}`))
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	c := nginx.NewAdminClient(sock)
	ctx := context.Background()
	if _, err := c.Counters(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BackendCounters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PushBackends(ctx, 1, nil, []string{"gone"}, false); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 4 {
		t.Fatalf("requests seen: %v, want 4", seen)
	}
	for req, enc := range seen {
		if enc != "" {
			t.Errorf("%s sent Accept-Encoding %q, want none", req, enc)
		}
	}
}
