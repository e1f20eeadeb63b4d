package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "restyplane dev\n"; got != want {
		t.Fatalf("version = %q, want %q", got, want)
	}
	if err := run(t.Context(), []string{"frobnicate"}, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown subcommand did not fail")
	}
	if err := run(t.Context(), []string{"serve", "--no-such-flag"}, io.Discard, io.Discard); err == nil {
		t.Fatal("an unknown flag did not fail")
	}
	err := run(t.Context(), []string{"serve", "--data-dir", t.TempDir(), "--prune-interval", "0s"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--prune-interval") {
		t.Fatalf("serve --prune-interval 0s = %v, want an error naming the flag", err)
	}
}

// TestHelpIsNotAFailure: -h and --help print a subcommand's flags and succeed, and the
// agent's help offers only the OpenResty modes it takes.
func TestHelpIsNotAFailure(t *testing.T) {
	for _, args := range [][]string{{"serve", "-h"}, {"agent", "--help"}} {
		var errb bytes.Buffer
		if err := run(t.Context(), args, io.Discard, &errb); err != nil {
			t.Errorf("%q = %v, want success", args, err)
		}
		if !strings.Contains(errb.String(), "-openresty") {
			t.Errorf("%q printed %q, want the flags", args, errb.String())
		}
		if args[0] == "agent" && strings.Contains(errb.String(), "or off") {
			t.Errorf("agent's help offers --openresty off, which it refuses")
		}
	}
}

// TestServe starts `restyplane serve` in-process on a fresh data directory: the first start
// makes an admin token and, since its output is no terminal but a log others may read,
// puts it in a 0600 file of the data directory, never in the output; the token works,
// SIGTERM's context ends the server cleanly, and a second start makes no token.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	first := startServe(t, dir)
	if out := first.stdout.String() + first.stderr.String(); strings.Contains(out, "rp_") {
		t.Fatalf("first start wrote a token to its output: %q", out)
	}
	file := filepath.Join(dir, adminTokenFile)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("first start made no token file: %v", err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	secret := regexp.MustCompile(`rp_[A-Za-z0-9_-]{43}`).FindString(string(data))
	if secret == "" {
		t.Fatalf("the token file holds no admin token: %q", data)
	}
	if got, want := get(t, first.addr, "/api/v1/whoami", secret), http.StatusOK; got != want {
		t.Fatalf("whoami with the printed token = %d, want %d", got, want)
	}
	if got, want := get(t, first.addr, "/healthz", ""), http.StatusOK; got != want {
		t.Fatalf("healthz = %d, want %d", got, want)
	}
	first.stop(t)

	second := startServe(t, dir)
	if strings.Contains(second.stdout.String(), "rp_") {
		t.Fatalf("second start printed a token: %q", second.stdout.String())
	}
	if got, want := get(t, second.addr, "/api/v1/whoami", secret), http.StatusOK; got != want {
		t.Fatalf("whoami after restart = %d, want %d", got, want)
	}
	second.stop(t)
}

// TestServeAdminTokenFromEnv sets the first admin token from the environment and never
// prints it.
func TestServeAdminTokenFromEnv(t *testing.T) {
	const secret = "rp_this-is-a-test-secret-of-enough-length"
	t.Setenv("RESTYPLANE_ADMIN_TOKEN", secret)
	s := startServe(t, t.TempDir())
	defer s.stop(t)
	if strings.Contains(s.stdout.String()+s.stderr.String(), secret) {
		t.Fatal("the admin token from the environment was printed")
	}
	if got, want := get(t, s.addr, "/api/v1/whoami", secret), http.StatusOK; got != want {
		t.Fatalf("whoami with RESTYPLANE_ADMIN_TOKEN = %d, want %d", got, want)
	}
}

// served is a running in-process `restyplane serve`.
type served struct {
	addr           string
	stdout, stderr *rptest.LockedBuffer
	cancel         context.CancelFunc
	done           chan error
}

func startServe(t *testing.T, dir string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stdout: &rptest.LockedBuffer{}, stderr: &rptest.LockedBuffer{}, cancel: cancel, done: make(chan error, 1)}
	t.Cleanup(cancel)
	go func() {
		s.done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dir, "--log-format", "json", "--openresty", "off"}, s.stdout, s.stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
		for sc.Scan() {
			var line struct{ Msg, Listen string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "restyplane serving" {
				s.addr = line.Listen
				return s
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve ended before serving: %v\n%s", err, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start within 20s:\n%s", s.stderr.String())
	return nil
}

// stop cancels the context, as SIGTERM does, and waits for a clean exit.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s")
	}
}

func get(t *testing.T, addr, path, token string) int {
	t.Helper()
	r, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestServeRefusesClearTextBeyondLoopback: an API on a non-loopback address without TLS
// would carry tokens and private keys in clear, so serve refuses to start unless told the
// network is trusted.
func TestServeRefusesClearTextBeyondLoopback(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		err := run(t.Context(), []string{"serve", "--listen", listen, "--data-dir", t.TempDir(), "--openresty", "off"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--trusted-network") {
			t.Errorf("serve --listen %s without TLS = %v, want a refusal naming --trusted-network", listen, err)
		}
	}
	for _, listen := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		c := serveConfig{listen: listen, pruneEvery: "1h"}
		if err := c.check(); err != nil {
			t.Errorf("--listen %s: %v, want nil", listen, err)
		}
	}
	c := serveConfig{listen: "0.0.0.0:9180", pruneEvery: "1h", trusted: true}
	if err := c.check(); err != nil {
		t.Errorf("--listen 0.0.0.0:9180 --trusted-network: %v, want nil", err)
	}
}
