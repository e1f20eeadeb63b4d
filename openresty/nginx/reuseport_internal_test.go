package nginx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMigratesRequestsReadsTheSysctl(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{"1\n": true, "0\n": false, "2\n": false, "": false} {
		path := filepath.Join(dir, "tcp_migrate_req")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := migratesRequests(path); got != want {
			t.Errorf("sysctl %q: migratesRequests = %v, want %v", content, got, want)
		}
	}
	if migratesRequests(filepath.Join(dir, "missing")) {
		t.Error("a kernel without the sysctl: migratesRequests = true, want false")
	}
}
