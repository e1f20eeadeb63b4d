package nginx_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestDefaultLayoutWorkersReachTheirFiles runs nginx in the layout serve gives it: the
// prefix inside a data directory of mode 0700, under the test's own 0700 directory, with
// nobody opening either. Basic auth's htpasswd file and the temporary files of a large
// request and a large response must work for the workers, which run as nobody when the
// tests run as root.
func TestDefaultLayoutWorkersReachTheirFiles(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: over every memory buffer
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(body)
		w.Header().Set("X-Body-Sum", hex.EncodeToString(sum[:]))
		w.Write(big)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	be := api.Backend{Name: "b", LoadBalance: api.RoundRobin,
		Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, Weight: 1}}}
	hp := api.Htpasswd{Name: "admins", Content: "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n"} // password
	if err := hp.Validate(); err != nil {
		t.Fatal(err)
	}
	srvCfg := server("s", "auth.test", "/", "b")
	srvCfg.Locations[0].Auth = &api.LocationAuth{Basic: &api.BasicAuth{Htpasswd: "admins"}}
	cfg := config([]api.Backend{be}, srvCfg, server("o", "open.test", "/", "b"))
	cfg.Htpasswds = []api.Htpasswd{hp}

	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o700); err != nil { // as store.Open makes it
		t.Fatal(err)
	}
	in := startNginxWith(t, cfg, func(o *nginx.Options) { o.Prefix = filepath.Join(data, "openresty") })
	push(t, in, 1, be)
	addr := proxyAddr(in)

	if got := get(t, addr, "auth.test", "/").status; got != http.StatusUnauthorized {
		t.Errorf("without a password: %d, want 401", got)
	}
	if got := get(t, addr, "auth.test", "/", "Authorization", basic("alice", "password")).status; got != http.StatusOK {
		t.Errorf("with alice's password: %d, want 200 (can the workers read the htpasswd file?)", got)
	}
	body := bytes.Repeat([]byte("x"), 900<<10) // over client_body_buffer_size: a temp file
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "open.test"
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sum := sha256.Sum256(body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, big) ||
		resp.Header.Get("X-Body-Sum") != hex.EncodeToString(sum[:]) {
		t.Errorf("a 900 KiB request and a 1 MiB answer through temp files: %d, %d bytes back, sum %q",
			resp.StatusCode, len(got), resp.Header.Get("X-Body-Sum"))
	}
}

// basic is the Authorization header of user and password.
func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}
