package nginx_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

// largeHeaderTraffic sends n requests with a user agent of 7 KiB, which the access log
// writes in full, through the proxy to host.
func largeHeaderTraffic(t *testing.T, in *nginx.Instance, host string, n int) {
	t.Helper()
	ua := strings.Repeat("u", 7<<10) // under the 8k of large_client_header_buffers
	c := &http.Client{Timeout: 10 * time.Second}
	for i := range n {
		req, _ := http.NewRequest("GET", "http://"+proxyAddr(in)+"/", nil)
		req.Host = host
		req.Header.Set("User-Agent", ua)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// dirBytes is the size of the files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestLogsStayBounded: 3,000 requests with 7 KiB headers write 21 MiB of access log. On a
// machine the logs rotate past their cap (one previous file kept), so the prefix stays
// within a few caps, and the newest requests are in the current file.
func TestLogsStayBounded(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("b", up)}, server("s", "logs.test", "/", "b"))
	const maxLog = 512 << 10
	in := startNginxWith(t, cfg, func(o *nginx.Options) {
		o.MaxLogBytes, o.LogCheckEvery = maxLog, 20*time.Millisecond
	})
	push(t, in, 1, backend("b", up))
	// The logs are in the worker directory: the prefix when the workers can reach it.
	wd := in.Options().RenderOptions("").Workers().String()
	before := dirBytes(t, wd)
	largeHeaderTraffic(t, in, "logs.test", 3000)
	logs := filepath.Join(wd, "logs")
	size := func(f string) int64 {
		fi, err := os.Stat(filepath.Join(logs, f))
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	// The access log's buffer flushes every second, and the next check rotates: a check
	// delayed on a busy machine lets a file pass the cap by what came meanwhile, so the
	// bounds are a few caps, against the 21 MiB that an unrotated log holds.
	deadline := time.Now().Add(10 * time.Second)
	for size("access.log") > 2*maxLog && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, f := range []string{"access.log", "access.log.1", "error.log"} {
		if n := size(f); n > 8*maxLog {
			t.Errorf("%s holds %d bytes, cap %d", f, n, maxLog)
		}
	}
	if grown := dirBytes(t, wd) - before; grown > 12*maxLog {
		t.Errorf("the prefix grew by %d bytes under 21 MiB of access log, want at most %d", grown, 12*maxLog)
	}
	// A request after the rotation lands in the current file. The loop above may end while
	// the file is still between the cap and twice it, so the rotation can come after the
	// request and take its buffered line into access.log.1: the request is sent again
	// (each a second apart, the buffer's flush) until one is in the current file.
	deadline = time.Now().Add(10 * time.Second)
	for {
		largeHeaderTraffic(t, in, "logs.test", 1)
		sent := time.Now()
		for time.Since(sent) < 1500*time.Millisecond {
			b, _ := os.ReadFile(filepath.Join(logs, "access.log"))
			if bytes.Contains(b, []byte("logs.test")) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the current access log holds no request after rotation (%d bytes)", size("access.log"))
		}
	}
}

// TestLogsToStdio: run as a container runs it, nginx's error and access logs go to the
// file descriptor it is given (the container's stdout), none to the prefix.
func TestLogsToStdio(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		b := make([]byte, 64<<10)
		for {
			n, err := r.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	up := startUpstream(t, "a", 0)
	cfg := config([]api.Backend{backend("b", up)}, server("s", "stdio.test", "/", "b"))
	in := startNginxWith(t, cfg, func(o *nginx.Options) { o.LogsTo = w })
	w.Close() // nginx holds its own copy
	push(t, in, 1, backend("b", up))
	largeHeaderTraffic(t, in, "stdio.test", 200)
	time.Sleep(1200 * time.Millisecond)
	mu.Lock()
	got := out.String()
	mu.Unlock()
	if !strings.Contains(got, "stdio.test") {
		t.Errorf("the access log did not reach the given descriptor (%d bytes there)", len(got))
	}
	if n := dirBytes(t, in.Options().RenderOptions("").Workers().Path("logs")); n > 64<<10 {
		t.Errorf("the prefix's logs hold %d bytes, want none of the traffic's 1.6 MiB", n)
	}
}
