package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

const caddyBinary = "/usr/bin/caddy"

// caddySystem is Debian's Caddy, configured through its admin API: each switch is a PATCH
// of the reverse_proxy handler's upstreams, which Caddy answers once the new config runs.
type caddySystem struct {
	listen, admin string
	client        *http.Client
}

// caddyConfig is Caddy's native JSON config: one HTTP server on loopback whose only route
// proxies to one upstream. Nothing is saved between runs and no certificate is managed.
func caddyConfig(admin, listen string, u *upstream) map[string]any {
	return map[string]any{
		"admin":   map[string]any{"listen": admin, "config": map[string]any{"persist": false}},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "WARN"}}},
		"apps": map[string]any{"http": map[string]any{"servers": map[string]any{"side": map[string]any{
			"listen":          []string{listen},
			"automatic_https": map[string]any{"disable": true},
			"routes": []any{map[string]any{"handle": []any{map[string]any{
				"handler": "reverse_proxy", "upstreams": caddyUpstreams(u)}}}},
		}}}},
	}
}

func caddyUpstreams(u *upstream) []map[string]string {
	return []map[string]string{{"dial": fmt.Sprintf("127.0.0.1:%d", u.port)}}
}

// startCaddy runs `caddy run` with that config and waits until it proxies to a.
func startCaddy(tb testing.TB, a *upstream) *caddySystem {
	tb.Helper()
	if _, err := os.Stat(caddyBinary); err != nil {
		tb.Fatalf("%s is missing: install Debian's caddy (apt-get install caddy; hack/install.sh does it): %v", caddyBinary, err)
	}
	dir := tb.TempDir()
	c := &caddySystem{listen: rptest.FreeAddr(tb), admin: rptest.FreeAddr(tb),
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	conf, err := json.Marshal(caddyConfig(c.admin, c.listen, a))
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "caddy.json")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(caddyBinary, "run", "--config", path)
	// Caddy keeps its data and autosaved config under these; the test's directory keeps
	// them away from the machine's.
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &rptest.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start caddy: %v", err)
	}
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	waitServes(tb, c.listen, "", a.name, out)
	return c
}

func (c *caddySystem) label() string { return "Caddy " + caddyVersion() + ", admin API PATCH" }
func (c *caddySystem) addr() string  { return c.listen }
func (c *caddySystem) host() string  { return "caddy.side.test" }

func (c *caddySystem) switchTo(u *upstream) error {
	body, err := json.Marshal(caddyUpstreams(u))
	if err != nil {
		return err
	}
	req, err := http.NewRequest("PATCH", "http://"+c.admin+"/config/apps/http/servers/side/routes/0/handle/0/upstreams", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("caddy admin PATCH: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("caddy admin PATCH = %d: %.300s", resp.StatusCode, data)
	}
	return nil
}

// caddyVersion is the first word of `caddy version`, e.g. "2.6.2".
func caddyVersion() string {
	out, err := exec.Command(caddyBinary, "version").Output()
	if err != nil {
		return ""
	}
	f := bytes.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return string(f[0])
}
