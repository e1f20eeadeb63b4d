package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The phases benchmark also counts the instructions a proxy's worker runs per request,
// under valgrind's callgrind: unlike CPU time, the count does not move with the other work
// on the machine, so a phase's cost shows to the hundred instructions on a busy machine
// too. It counts user space only (nginx, the Lua VM and its compiled traces, libc), not
// the kernel's share of a request, which Lua does not change.
const (
	valgrindBinary   = "/usr/bin/valgrind"
	callgrindControl = "/usr/bin/callgrind_control"
	callgrindWarm    = 4 * time.Second // compiles the Lua traces before the count
	callgrindRun     = 6 * time.Second
)

// callgrindNginx writes a script that runs nginx under callgrind, writing its counts into
// dir, and returns its path and dir.
func callgrindNginx(tb testing.TB) (binary, dir string) {
	tb.Helper()
	for _, p := range []string{valgrindBinary, callgrindControl} {
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("%s is missing: install Debian's valgrind (hack/install.sh bench does): %v", p, err)
		}
	}
	nginxPath, err := exec.LookPath("nginx")
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	binary = filepath.Join(dir, "nginx-callgrind")
	script := fmt.Sprintf("#!/bin/sh\nexec %s --tool=callgrind --smc-check=all-non-file -q --callgrind-out-file=%s/callgrind.%%p %s \"$@\"\n",
		valgrindBinary, dir, nginxPath)
	if err := os.WriteFile(binary, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	return binary, dir
}

// instructions loads route r on t, whose nginx runs as one process (master_process off)
// under callgrind writing into dir, and returns the instructions it ran per answered
// request. (callgrind_control reaches the process valgrind started, not a worker it forks.)
func instructions(tb testing.TB, t costTarget, r costRoute, dir string) float64 {
	tb.Helper()
	waitCostServes(tb, t, r)
	worker := []string{strconv.Itoa(t.master)}
	costLoad(tb, t, r, callgrindWarm)
	control := func(arg string) {
		if out, err := exec.Command(callgrindControl, arg, worker[0]).CombinedOutput(); err != nil {
			tb.Fatalf("callgrind_control %s %s: %v\n%s", arg, worker[0], err, out)
		}
	}
	control("-z")
	res := costLoad(tb, t, r, callgrindRun)
	control("-d")
	// The dump is callgrind.<pid>.<n>, written a moment after the command returns; the
	// newest holds the count since -z.
	var dumps []string
	for deadline := time.Now().Add(time.Minute); len(dumps) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			all, _ := os.ReadDir(dir)
			var names []string
			for _, e := range all {
				names = append(names, e.Name())
			}
			tb.Fatalf("%s: callgrind wrote no dump for worker %s within a minute: %v", t.name, worker[0], names)
		}
		dumps, _ = filepath.Glob(filepath.Join(dir, "callgrind."+worker[0]+".*"))
	}
	newest, n := "", -1
	for _, d := range dumps {
		if k, err := strconv.Atoi(d[strings.LastIndexByte(d, '.')+1:]); err == nil && k > n {
			newest, n = d, k
		}
	}
	data, err := os.ReadFile(newest)
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "summary: "); ok {
			total, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				tb.Fatalf("%s: %q: %v", newest, line, err)
			}
			return float64(total) / float64(res.Responses)
		}
	}
	tb.Fatalf("%s: no summary line", newest)
	return 0
}

// singleProcess makes a conf run as one process, master and worker in one, for callgrind.
func singleProcess(conf string) (string, bool) {
	if !strings.Contains(conf, "master_process on;") {
		return conf, false
	}
	return strings.Replace(conf, "master_process on;", "master_process off;", 1), true
}
