package nginx

import (
	"io"
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
		w := in.workers()
		for _, f := range []string{w.ErrorLog(), w.AccessLog(), in.l.stderrLog()} {
			if fi, err := os.Stat(f); err == nil && fi.Size() > in.opts.MaxLogBytes {
				if err := os.Rename(f, f+".1"); err != nil {
					in.opts.Logger.Warn("rotate nginx log", "file", f, "err", err)
					continue
				}
				rotated = true
			}
		}
		in.truncateWAFLog()
		if pid := in.PID(); rotated && pid > 0 {
			if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
				in.opts.Logger.Warn("tell nginx to reopen its logs", "pid", pid, "err", err)
			}
		}
	}
}

// truncateWAFLog keeps ModSecurity's audit log under MaxLogBytes too. ModSecurity opens
// it once, in the master, and never reopens it on USR1; it appends, so the file is copied
// to <name>.1 and cut to nothing in place, and the next entry starts it again.
func (in *Instance) truncateWAFLog() {
	f := in.l.WAFAuditLog()
	fi, err := os.Stat(f)
	if err != nil || fi.Size() <= in.opts.MaxLogBytes {
		return
	}
	if err := copyFile(f, f+".1"); err != nil {
		in.opts.Logger.Warn("rotate the WAF audit log", "file", f, "err", err)
	}
	if err := os.Truncate(f, 0); err != nil {
		in.opts.Logger.Warn("truncate the WAF audit log", "file", f, "err", err)
	}
}

// copyFile copies src to dst, replacing it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
