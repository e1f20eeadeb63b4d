package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const wrkBinary = "/usr/bin/wrk"

// wrkScript counts every answer that is not 2xx, in each wrk thread, and prints the sum
// with wrk's own socket errors and latency percentiles as one JSON line.
const wrkScript = `
local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    responses = 0
    non2xx = 0
end

function response(status, headers, body)
    responses = responses + 1
    if status < 200 or status > 299 then
        non2xx = non2xx + 1
    end
end

function done(summary, latency, requests)
    local r, n = 0, 0
    for _, t in ipairs(threads) do
        r = r + t:get("responses")
        n = n + t:get("non2xx")
    end
    local e = summary.errors
    io.write(string.format('WRKRESULT {"responses":%d,"non2xx":%d,"requests":%d,"durationUs":%d,' ..
        '"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
        r, n, summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
        latency:percentile(50), latency:percentile(99), latency.max))
end
`

// wrkResult is what one wrk run reports.
type wrkResult struct {
	Responses  int64 `json:"responses"`
	Non2xx     int64 `json:"non2xx"`
	Requests   int64 `json:"requests"`
	DurationUs int64 `json:"durationUs"`
	Connect    int64 `json:"connect"`
	Read       int64 `json:"read"`
	Write      int64 `json:"write"`
	Timeout    int64 `json:"timeout"`
	P50Us      int64 `json:"p50Us"`
	P99Us      int64 `json:"p99Us"`
	MaxUs      int64 `json:"maxUs"`
}

// failed counts every request that did not end in a 2xx: non-2xx answers and requests
// lost to a socket error or a timeout.
func (r wrkResult) failed() int64 { return r.Non2xx + r.Connect + r.Read + r.Write + r.Timeout }

func (r wrkResult) rps() float64 { return float64(r.Responses) / (float64(r.DurationUs) / 1e6) }

// wrkRun is a wrk process sending load until stop (or its own time limit).
type wrkRun struct {
	tb  testing.TB
	cmd *exec.Cmd
	out bytes.Buffer
}

// wrkShape is how one wrk process loads the proxy.
type wrkShape struct {
	threads, connections int
	// fresh sends "Connection: close", so that every request opens a new connection, as
	// clients without keep-alive do.
	fresh bool
	// header is one more request header ("Origin: https://app.example"), or empty.
	header string
}

func (s wrkShape) String() string {
	threads := fmt.Sprintf("%d threads", s.threads)
	if s.threads == 1 {
		threads = "1 thread"
	}
	if s.fresh {
		return fmt.Sprintf("%s, %d connections, a new one per request", threads, s.connections)
	}
	return fmt.Sprintf("%s, %d kept-alive connections", threads, s.connections)
}

// wrkMaxDuration is wrk's own limit: it bounds every run in time even if stop is never
// called.
const wrkMaxDuration = 120 * time.Second

// startWrk starts wrk against url with the Host header host.
func startWrk(tb testing.TB, url, host string, shape wrkShape) *wrkRun {
	tb.Helper()
	if _, err := os.Stat(wrkBinary); err != nil {
		tb.Fatalf("%s is missing: install Debian's wrk (apt-get install wrk): %v", wrkBinary, err)
	}
	script := filepath.Join(tb.TempDir(), "count.lua")
	if err := os.WriteFile(script, []byte(wrkScript), 0o644); err != nil {
		tb.Fatal(err)
	}
	w := &wrkRun{tb: tb}
	args := []string{"-t", fmt.Sprint(shape.threads), "-c", fmt.Sprint(shape.connections),
		"-d", fmt.Sprintf("%ds", int(wrkMaxDuration.Seconds())), "--timeout", "5s",
		"-H", "Host: " + host, "-s", script}
	if shape.fresh {
		args = append(args, "-H", "Connection: close")
	}
	if shape.header != "" {
		args = append(args, "-H", shape.header)
	}
	w.cmd = exec.Command(wrkBinary, append(args, url)...)
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
	if err := w.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			w.cmd.Process.Kill()
			w.cmd.Wait()
		}
	})
	return w
}

// stop interrupts wrk, which then prints its summary, and returns the result.
func (w *wrkRun) stop() wrkResult {
	w.tb.Helper()
	w.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		w.cmd.Process.Kill()
		<-done
		w.tb.Fatalf("wrk did not stop on SIGINT:\n%s", w.out.String())
	}
	var res wrkResult
	for _, line := range strings.Split(w.out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "WRKRESULT "); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				w.tb.Fatalf("wrk result %q: %v", rest, err)
			}
			return res
		}
	}
	w.tb.Fatalf("wrk printed no result:\n%s", w.out.String())
	return res
}
