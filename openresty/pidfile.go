package openresty

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runningPID returns the pid in the prefix's pid file if an nginx process has it.
func (l layout) runningPID() int {
	data, err := os.ReadFile(l.pidFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0
	}
	// The pid may have been reused by another program since nginx wrote the file.
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err == nil && !strings.Contains(string(cmdline), "nginx") {
		return 0
	}
	return pid
}

// children returns the pids whose parent is pid, read from /proc: a master's workers.
// Without /proc it returns none.
func children(pid int) map[int]bool {
	out := map[int]bool{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := strconv.Itoa(pid)
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// After the command's closing parenthesis come the state and the parent pid.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 1 && f[1] == want {
			if child, err := strconv.Atoi(filepath.Base(filepath.Dir(s))); err == nil {
				out[child] = true
			}
		}
	}
	return out
}
