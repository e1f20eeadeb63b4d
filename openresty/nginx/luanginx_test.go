package nginx_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// startLuaNginx starts a real nginx with the Lua module as one process on a free loopback
// port, with the http block http gives for it (luaPath is the Lua module's own path),
// and returns its prefix and port. before, when given, runs first on the prefix.
func startLuaNginx(tb testing.TB, http func(luaPath string, port int) string, before ...func(dir string)) (string, int) {
	tb.Helper()
	o := nginx.Detect()
	if err := o.CheckBinary(); err != nil {
		tb.Fatalf("this test needs a real nginx with the Lua module (run hack/install.sh): %v", err)
	}
	dir := tb.TempDir()
	for _, f := range before {
		f(dir)
	}
	port := freePort(tb)
	var conf strings.Builder
	for _, m := range o.Modules {
		fmt.Fprintf(&conf, "load_module %s;\n", m)
	}
	fmt.Fprintf(&conf, "daemon off;\nmaster_process off;\npid %[1]s/nginx.pid;\nerror_log %[1]s/error.log error;\n"+
		"events { worker_connections 64; }\nhttp {\n%[2]s}\n", dir, http(o.LuaPath, port))
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(o.Binary, "-p", dir+"/", "-c", path)
	// nginx dies with the test process, and takes none of its descriptors but stdio: a
	// fuzz worker's pipes to its coordinator are inherited ones, which exec passes on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	closeOnExec(tb)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return dir, port
}

// closeOnExec marks every descriptor of this process above stdio close-on-exec; the
// process itself keeps them.
func closeOnExec(tb testing.TB) {
	tb.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range fds {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// TestLuaNginxInheritsNoDescriptor: the tests' own nginx gets none of the test process's
// descriptors but stdio. A fuzz worker talks to its coordinator through inherited pipes;
// an nginx that kept their ends outlived a worker the coordinator killed, and the
// coordinator waited for the pipe's end for good.
func TestLuaNginxInheritsNoDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// As a fuzz worker's pipe is: inherited, so not closed on exec.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	startLuaNginx(t, func(_ string, port int) string {
		return fmt.Sprintf("    server { listen 127.0.0.1:%d; location / { return 204; } }\n", port)
	})
	w.Close()
	if err := r.SetReadDeadline(time.Now().Add(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("reading a pipe whose write end this process closed: %v, want EOF (nginx holds the write end)", err)
	}
}

// TestLuaNginxDiesWithItsParent: a test process killed outright (as a fuzz worker the
// coordinator stops) runs no cleanup, and the tests' nginx must not outlive it. The test
// runs itself again as the parent, which starts nginx, tells its pid and waits to be killed.
func TestLuaNginxDiesWithItsParent(t *testing.T) {
	if os.Getenv("RESTYPLANE_LUA_NGINX_PARENT") != "" {
		dir, _ := startLuaNginx(t, func(_ string, port int) string {
			return fmt.Sprintf("    server { listen 127.0.0.1:%d; location / { return 204; } }\n", port)
		})
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(filepath.Join(dir, "nginx.pid")); err == nil && len(b) > 1 && b[len(b)-1] == '\n' {
				fmt.Printf("nginx %s", b)
				break
			}
		}
		time.Sleep(time.Minute)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLuaNginxDiesWithItsParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RESTYPLANE_LUA_NGINX_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var pid int
	if _, err := fmt.Fscanf(out, "nginx %d\n", &pid); err != nil {
		t.Fatalf("the parent did not tell nginx's pid: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("nginx (pid %d) outlived its parent, killed without a cleanup, by 5 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive says whether process pid runs: a zombie, which this machine's init may never
// reap, does not.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
