package e2e

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestNonRootDefaultLayout runs restyplane as an unprivileged user, as a user without
// root runs `make run`: in a directory of that user's, with the default layout (the data
// directory 0700, the prefix inside it). nginx's workers then run as that user too. Basic
// auth answers 401 and 200, and again after restyplane and nginx restart.
func TestNonRootDefaultLayout(t *testing.T) {
	var cred *syscall.Credential
	home := t.TempDir()
	bin := rptest.Binary(t)
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Fatalf("this test runs restyplane as nobody when the tests run as root: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		// The user's own directory, as a home directory is: somewhere only it writes,
		// and its copy of the binary.
		if home, err = os.MkdirTemp("", "restyplane-nonroot"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(home) })
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(home, "restyplane")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{home, bin} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e non-root", Binary: bin, Credential: cred,
		DataDir: filepath.Join(home, "data")})
	in := &instance{Process: p, t: t}
	up := newUpstream(t, "web", 200, 0)
	in.must("POST", "/api/v1/backends", backend("web", up.endpoint(1)))
	in.must("POST", "/api/v1/htpasswds", map[string]any{"name": "admins", "content": htpasswdLines()})
	loc := location("/", "web")
	loc["auth"] = map[string]any{"basic": map[string]any{"htpasswd": "admins"}}
	in.must("POST", "/api/v1/servers", server("shop", "shop.test", loc))
	check := func(when string) {
		t.Helper()
		if st := in.waitSynced(); st["applied"] != st["head"] {
			t.Fatalf("%s: %v", when, st)
		}
		if code, body := waitCode(in, "shop.test", "/", 401); code != 401 {
			t.Fatalf("%s: without a password %d %q, want 401", when, code, body)
		}
		if code, body := waitCode(in, "shop.test", "/", 200, "Authorization", basic("sha", "secret")); code != 200 {
			t.Fatalf("%s: with the password %d %q, want 200 (can the workers read the htpasswd file?)", when, code, body)
		}
	}
	check("live")
	if cred != nil {
		status, err := os.ReadFile("/proc/" + strconv.Itoa(p.NginxPID()) + "/status")
		if err != nil || !strings.Contains(string(status), "\nUid:\t"+strconv.Itoa(int(cred.Uid))+"\t") {
			t.Fatalf("nginx's master does not run as uid %d: %v\n%s", cred.Uid, err, status)
		}
	}
	in.Stop()
	in = &instance{Process: in.Restart(t), t: t}
	check("after a restart")
}
