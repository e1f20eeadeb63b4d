package render_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

var update = flag.Bool("update", false, "rewrite the outputs of testdata/render/*.txtar from what renders now")

// goldenOptions are the instance facts every golden file renders with.
var goldenOptions = render.Options{Generation: "1", Prefix: "/srv/restyplane", ProxyListen: "0.0.0.0:80",
	TLSListen: "0.0.0.0:443", Modules: []string{"/usr/lib/nginx/modules/ngx_http_lua_module.so"},
	LuaPath: "/usr/share/lua/5.1/?.lua", StubStatus: true, StreamModule: "/usr/lib/nginx/modules/ngx_stream_module.so",
	StreamJSModule:    "/usr/lib/nginx/modules/ngx_stream_js_module.so",
	ModSecurityModule: "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so", ReusePort: true}

// TestGolden renders the config.json of each testdata/render/*.txtar and compares the
// result with the archive's nginx.conf and push.json, so that a change to what is rendered
// shows in review as the lines it changes. config.json holds what differs from a config
// with api's default settings. `go test ./openresty/render -run TestGolden -update`
// rewrites the outputs.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "render", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in testdata/render (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar := readArchive(t, file)
			cfg := goldenConfig(t, ar.file(t, "config.json"))
			conf, err := render.Conf(cfg, goldenOptions)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			got := map[string]string{"nginx.conf": string(conf), "push.json": fullPush(t, cfg)}
			if *update {
				ar.set("nginx.conf", got["nginx.conf"])
				ar.set("push.json", got["push.json"])
				if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"nginx.conf", "push.json"} {
				if diff := cmp.Diff(strings.Split(ar.file(t, name), "\n"), strings.Split(got[name], "\n")); diff != "" {
					t.Errorf("%s of %s differs (-golden +rendered; go test -run TestGolden -update rewrites it):\n%s", name, file, diff)
				}
			}
		})
	}
}

// goldenConfig reads config.json over api's default settings and checks that api accepts
// it, so that a golden file shows what a real config renders to.
func goldenConfig(t *testing.T, data string) api.Config {
	t.Helper()
	cfg := api.Config{Settings: api.DefaultSettings()}
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("config.json: %v", err)
	}
	if err := cfg.Settings.Validate(); err != nil {
		t.Fatalf("config.json: settings: %v", err)
	}
	for _, b := range cfg.Backends {
		if err := b.Validate(); err != nil {
			t.Fatalf("config.json: backend %q: %v", b.Name, err)
		}
	}
	for i := range cfg.Servers {
		cfg.Servers[i].Normalize()
		if err := cfg.Servers[i].Validate(); err != nil {
			t.Fatalf("config.json: server %q: %v", cfg.Servers[i].Name, err)
		}
	}
	return cfg
}

// fullPush is the dynamic push that replaces everything an instance holds with cfg's:
// backends, certificates and the locations' policies, each sorted by name, as JSON.
func fullPush(t *testing.T, cfg api.Config) string {
	t.Helper()
	p := render.Push{Full: true, Backends: slices.Clone(cfg.Backends), Certificates: slices.Clone(cfg.Certificates)}
	slices.SortFunc(p.Backends, func(a, b api.Backend) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(p.Certificates, func(a, b api.Certificate) int { return strings.Compare(a.Name, b.Name) })
	for i := range cfg.Servers {
		ps, err := render.ServerPolicies(&cfg.Servers[i])
		if err != nil {
			t.Fatalf("policies of server %q: %v", cfg.Servers[i].Name, err)
		}
		p.Policies = append(p.Policies, ps...)
	}
	slices.SortFunc(p.Policies, func(a, b render.LocationPolicy) int { return strings.Compare(a.Name, b.Name) })
	out, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

// archive is a txtar file: a comment, then files, each introduced by a "-- name --" line.
type archive struct {
	comment string
	names   []string
	files   map[string]string
}

func readArchive(t *testing.T, path string) *archive {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar := &archive{files: map[string]string{}}
	name, inFile := "", false
	var b strings.Builder
	flush := func() {
		if inFile {
			ar.files[name] = b.String()
		} else {
			ar.comment = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if n, ok := fileMarker(line); ok {
			flush()
			name, inFile = n, true
			ar.names = append(ar.names, n)
			continue
		}
		b.WriteString(line)
	}
	flush()
	return ar
}

// fileMarker returns the name a "-- name --" line introduces.
func fileMarker(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 7 {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

// file returns the contents of the named file, failing the test when there is none.
func (ar *archive) file(t *testing.T, name string) string {
	t.Helper()
	data, ok := ar.files[name]
	if !ok && !*update {
		t.Fatalf("no %s in the archive (go test -run TestGolden -update writes it)", name)
	}
	return data
}

// set replaces or appends the named file.
func (ar *archive) set(name, data string) {
	if _, ok := ar.files[name]; !ok {
		ar.names = append(ar.names, name)
	}
	ar.files[name] = data
}

// format writes the archive back: the comment, then each file in order, each ending in a
// newline.
func (ar *archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(ar.comment)
	for _, name := range ar.names {
		b.WriteString("-- " + name + " --\n")
		data := ar.files[name]
		b.WriteString(data)
		if data != "" && !strings.HasSuffix(data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}
