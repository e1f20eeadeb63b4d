package nginx

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runningPID returns the pid in the prefix's pid file if a live nginx process has it.
func (l layout) runningPID() int {
	data, err := os.ReadFile(l.PidFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || !alive(pid) {
		return 0
	}
	// The pid may have been reused by another program since nginx wrote the file.
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err == nil && !strings.Contains(string(cmdline), "nginx") {
		return 0
	}
	return pid
}

// ownMaster reports whether pid is an nginx master started with the prefix l: one
// restyplane may adopt.
func (l layout) ownMaster(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	s := strings.ReplaceAll(string(cmdline), "\x00", " ")
	return err == nil && strings.Contains(s, "master process") && strings.Contains(s, " -p "+l.String()+"/ ")
}

// alive reports whether pid runs: it exists and is not a zombie, which a master that
// exited stays until its parent reaps it (and an adopted master's parent may never).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	state, _, _, ok := procStat(pid)
	return !ok || state != "Z"
}

// procStat reads the state, parent pid and process group of pid from /proc.
func procStat(pid int) (state string, ppid, pgrp int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	// After the command's closing parenthesis come the state, the parent pid and the group.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return f[0], ppid, pgrp, true
}

// waitPidfd blocks until pid exits, through a pidfd: unlike polling, it cannot mistake a
// new process that reused the pid for the old one. It returns an error at once where the
// kernel has no pidfds (before Linux 5.3) or pid is gone.
func waitPidfd(pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n > 0 {
			return err
		}
	}
}

// children returns the pids whose parent is pid, read from /proc: a master's workers.
// Without /proc it returns none.
func children(pid int) map[int]bool {
	out := map[int]bool{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		child, err := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		if err != nil {
			continue
		}
		if _, ppid, _, ok := procStat(child); ok && ppid == pid {
			out[child] = true
		}
	}
	return out
}
