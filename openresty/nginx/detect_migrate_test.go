package nginx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestMigratesRequestsReadsTheSysctl: only "1" turns the hand-over on; a kernel without
// the sysctl has none.
func TestMigratesRequestsReadsTheSysctl(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{"1\n": true, "0\n": false, "2\n": false, "": false} {
		path := filepath.Join(dir, "tcp_migrate_req")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := nginx.MigratesRequests(path); got != want {
			t.Errorf("sysctl %q: MigratesRequests = %v, want %v", content, got, want)
		}
	}
	if nginx.MigratesRequests(filepath.Join(dir, "missing")) {
		t.Error("a kernel without the sysctl: MigratesRequests = true, want false")
	}
}
