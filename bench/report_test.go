package bench

import (
	"fmt"
	"github.com/restyplane/restyplane/internal/benchmd"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// spread is a set of timings reduced to the figures a report shows. Percentiles are by
// nearest rank: p99 of 500 samples is the 495th smallest.
type spread struct {
	n                  int
	min, p50, p90, p99 time.Duration
	max                time.Duration
}

func spreadOf(ds []time.Duration) spread {
	if len(ds) == 0 {
		return spread{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := func(p int) time.Duration { return s[(len(s)*p+99)/100-1] }
	return spread{n: len(s), min: s[0], p50: rank(50), p90: rank(90), p99: rank(99), max: s[len(s)-1]}
}

// row is the spread as the cells of a markdown table: p50 | p90 | p99 | min–max | n.
func (s spread) row() string {
	return fmt.Sprintf("%s | %s | %s | %s–%s | %d", fmtDur(s.p50), fmtDur(s.p90), fmtDur(s.p99), fmtDur(s.min), fmtDur(s.max), s.n)
}

const spreadHeader = "| timing | p50 | p90 | p99 | min–max | n |\n|---|---|---|---|---|---|\n"

func fmtDur(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// header is the part every section starts with: what ran, where and when.
func header(title, bench, load string) string {
	return fmt.Sprintf("## %s\n\nCommand: `make bench` (runs `go test ./bench -run '^$' -bench . -benchtime 1x`; this section alone: `-bench '^%s$'`)  \n"+
		"Machine: %s  \nLoad average when it started (other work on the machine skews the figures): %s  \nDate: %s\n\n",
		title, bench, machine(), load, time.Now().UTC().Format("2006-01-02 15:04 MST"))
}

// report writes a benchmark's section into the file RESTYPLANE_BENCH_OUT names, if any.
func report(b *testing.B, name, body string) {
	b.Helper()
	fmt.Println(body)
	out := os.Getenv("RESTYPLANE_BENCH_OUT")
	if out == "" {
		return
	}
	if err := benchmd.WriteSection(out, name, body); err != nil {
		b.Fatalf("write %s: %v", out, err)
	}
}

// machine describes where the benchmark ran.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (nproc), %s, %s %s/%s", runtime.NumCPU(), model, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// loadAverage is the 1, 5 and 15 minute load averages from /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// nginxVersion is what `nginx -v` says, e.g. "nginx/1.22.1".
func nginxVersion() string {
	out, err := exec.Command("nginx", "-v").CombinedOutput()
	if err != nil {
		return "nginx"
	}
	_, v, _ := strings.Cut(strings.TrimSpace(string(out)), "version: ")
	return v
}
