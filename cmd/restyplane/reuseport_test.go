package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestReusePortNeedsTheKernelsHandOver: --reuse-port gives the workers a socket each only
// where the kernel hands over the connections of a closing one; elsewhere a reload to
// fewer workers would reset them, so the workers keep sharing one. Without the flag they
// share one whatever the kernel does.
func TestReusePortNeedsTheKernelsHandOver(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		flag   bool
		sysctl string
		want   bool
	}{{true, "1\n", true}, {true, "0\n", false}, {true, "", false}, {false, "1\n", false}} {
		path := filepath.Join(dir, "tcp_migrate_req")
		os.Remove(path)
		if c.sysctl != "" {
			if err := os.WriteFile(path, []byte(c.sysctl), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pc := proxyConfig{logs: "files", reusePort: c.flag, migrateReq: path}
		o, err := pc.options(dir, log)
		if err != nil {
			t.Fatal(err)
		}
		if o.ReusePort != c.want {
			t.Errorf("--reuse-port=%v, sysctl %q: ReusePort %v, want %v", c.flag, c.sysctl, o.ReusePort, c.want)
		}
	}
}
