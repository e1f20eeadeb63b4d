package nginx

import (
	"os"
	"syscall"
	"time"
)

// rotateLogs keeps the log files in <prefix>/logs under MaxLogBytes each until the
// instance stops: a file past it is renamed to <name>.1, replacing the previous one, and
// the master is told to reopen its logs (USR1), so that the workers write a new file. A
// data plane's disk then holds at most two files of each log, whatever the traffic (an
// access log line carries a client's headers: 8 KiB each under load fills a Pod's
// emptyDir in minutes). With LogsTo there are no such files, and nothing to do.
func (in *Instance) rotateLogs() {
	if in.opts.LogsTo != nil {
		return
	}
	t := time.NewTicker(in.opts.LogCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-in.stopping:
			return
		case <-t.C:
		}
		rotated := false
		for _, f := range []string{in.l.ErrorLog(), in.l.AccessLog(), in.l.stderrLog()} {
			if fi, err := os.Stat(f); err == nil && fi.Size() > in.opts.MaxLogBytes {
				if err := os.Rename(f, f+".1"); err != nil {
					in.opts.Logger.Warn("rotate nginx log", "file", f, "err", err)
					continue
				}
				rotated = true
			}
		}
		if pid := in.PID(); rotated && pid > 0 {
			if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
				in.opts.Logger.Warn("tell nginx to reopen its logs", "pid", pid, "err", err)
			}
		}
	}
}
