package render_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/openresty/render"
)

// listenRe takes a listen directive apart: its address and its parameters.
var listenRe = regexp.MustCompile(`(?m)^\s*listen "([^"]+)"([^;]*);`)

// TestEveryTCPAddressReusesItsPort renders every golden config and checks that each TCP
// address the conf listens on has exactly one listen directive with reuseport (nginx
// takes it once per address, and a socket per worker needs it once), that no unix socket
// has it, and that none has it when the option is off.
func TestEveryTCPAddressReusesItsPort(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "render", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in testdata/render (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			cfg := goldenConfig(t, readArchive(t, file).file(t, "config.json"))
			conf, err := render.Conf(cfg, goldenOptions)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			reused := map[string]int{}
			for _, m := range listenRe.FindAllStringSubmatch(string(conf), -1) {
				addr, reuse := m[1], strings.Contains(m[2], " reuseport")
				switch {
				case strings.HasPrefix(addr, "unix:") && reuse:
					t.Errorf("unix socket %s listened on with reuseport", addr)
				case !strings.HasPrefix(addr, "unix:"):
					reused[addr] += map[bool]int{true: 1}[reuse]
				}
			}
			for addr, n := range reused {
				if n != 1 {
					t.Errorf("%s: %d listen directives with reuseport, want 1", addr, n)
				}
			}
			if len(reused) == 0 {
				t.Error("no TCP listen address in the conf")
			}
			off := goldenOptions
			off.ReusePort = false
			if conf, err = render.Conf(cfg, off); err != nil {
				t.Fatalf("render without ReusePort: %v", err)
			}
			if strings.Contains(string(conf), "reuseport") {
				t.Error("reuseport in the conf rendered without ReusePort")
			}
		})
	}
}
