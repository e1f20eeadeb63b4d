package openresty

import (
	"os"
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
