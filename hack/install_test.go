// Package hack_test checks the repository's own scripts.
package hack_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/internal/rptest"
)

// stopsThings is what install.sh must never do: stop, disable or kill a service or process.
var stopsThings = regexp.MustCompile(`systemctl\s+(disable|stop|mask|kill)|service\s+\S+\s+stop|\bpkill\b|\bkillall\b|\bkill\s|nginx\s+-s\s`)

// TestInstallLeavesSystemNginxAlone starts an nginx the way a system runs one (its own
// configuration and pid file, a port of its own on loopback, started with the -g that
// systemd passes, so that its command line is a system nginx's), runs hack/install.sh so
// that it really installs a package (a small one named by RESTYPLANE_INSTALL_TEST_PACKAGE,
// "hello" by default, removed again afterwards if the test installed it), and checks that
// the same nginx master still serves. The script is also read for any command that stops
// or kills, because on a machine with every package installed it takes no install path.
func TestInstallLeavesSystemNginxAlone(t *testing.T) {
	script, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(script), "\n") {
		if code, _, _ := strings.Cut(line, "#"); stopsThings.MatchString(code) {
			t.Errorf("install.sh:%d stops or kills something: %s", i+1, line)
		}
	}

	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
	}
	if _, err := os.Stat(nginx); err != nil {
		t.Fatalf("this test needs Debian's nginx (hack/install.sh run installs nginx-light): %v", err)
	}
	dir := t.TempDir()
	port := freePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	pidFile := filepath.Join(dir, "nginx.pid")
	must(t, os.WriteFile(conf, []byte(fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events {}
http {
  access_log off;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fcgi; uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  server { listen 127.0.0.1:%[2]d; location / { return 200 "system nginx\n"; } }
}
`, dir, port)), 0o644))
	if out, err := exec.Command(nginx, "-g", "daemon on; master_process on;", "-p", dir, "-c", conf).CombinedOutput(); err != nil {
		t.Fatalf("start a system-like nginx: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command(nginx, "-p", dir, "-c", conf, "-s", "quit").Run() })
	pid := waitPid(t, pidFile)
	serves(t, port)

	pkg := os.Getenv("RESTYPLANE_INSTALL_TEST_PACKAGE")
	if pkg == "" {
		pkg = "hello"
	}
	if !installed(pkg) {
		t.Cleanup(func() {
			if out, err := exec.Command("apt-get", "-o", "DPkg::Lock::Timeout=300", "purge", "-y", "-qq", pkg).CombinedOutput(); err != nil {
				t.Errorf("remove %s again: %v: %s", pkg, err, out)
			}
		})
	}
	cmd := exec.Command("bash", "install.sh", "run")
	cmd.Env = append(os.Environ(), "RESTYPLANE_EXTRA_PACKAGES="+pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/install.sh run: %v: %s", err, out)
	}
	if !installed(pkg) {
		t.Fatalf("install.sh did not install %s: the install path did not run", pkg)
	}
	if got := waitPid(t, pidFile); got != pid {
		t.Fatalf("nginx master pid %d after install.sh, want %d", got, pid)
	}
	serves(t, port)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func installed(pkg string) bool {
	out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Output()
	return strings.Contains(string(out), "install ok installed")
}

// freePort returns a loopback port that was free a moment ago, outside the ephemeral range.
func freePort(t *testing.T) int { return rptest.FreePort(t) }

// waitPid returns the pid in the nginx pid file once the process lives.
func waitPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live nginx in pid file %s", file)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serves checks that the nginx on port answers.
func serves(t *testing.T, port int) {
	t.Helper()
	res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	if err != nil {
		t.Fatalf("the system nginx does not serve: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || string(b) != "system nginx\n" {
		t.Fatalf("the system nginx answered %d %q", res.StatusCode, b)
	}
}
