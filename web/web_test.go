package web_test

import (
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/web"
)

// readAll returns every embedded file by path.
func readAll(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(web.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web.Files(), p)
		if err != nil {
			return err
		}
		files[p] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("walk embedded files: %v", err)
	}
	return files
}

func TestIndexLoadsTheApp(t *testing.T) {
	files := readAll(t)
	index, ok := files["index.html"]
	if !ok {
		t.Fatalf("index.html is not embedded; files: %v", keys(files))
	}
	for _, want := range []string{`<script type="module" src="js/app.js"></script>`, `href="css/app.css"`, `id="main"`} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	for _, ref := range []string{"js/app.js", "css/app.css", "favicon.svg"} {
		if _, ok := files[ref]; !ok {
			t.Errorf("index.html refers to %s, which is not embedded", ref)
		}
	}
}

// The meta policy in index.html must be the header policy minus frame-ancestors, which
// browsers ignore in a meta element.
func TestMetaPolicyMatchesHeaderPolicy(t *testing.T) {
	index := readAll(t)["index.html"]
	m := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(index)
	if m == nil {
		t.Fatal("index.html has no Content-Security-Policy meta element")
	}
	want := strings.Replace(web.ContentSecurityPolicy, "frame-ancestors 'none'; ", "", 1)
	if got := m[1]; got != want {
		t.Fatalf("meta policy = %q, want %q", got, want)
	}
}

// The UI must run under a strict Content-Security-Policy and never turn API data into
// markup, so these constructs may not appear at all.
func TestNoInlineCodeOrHTMLInjection(t *testing.T) {
	html := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`(?i)<script(\s[^>]*)?>`), "script"},
		{regexp.MustCompile(`(?i)\son[a-z]+\s*=`), "inline event handler"},
		{regexp.MustCompile(`(?i)\sstyle\s*=`), "style attribute"},
		{regexp.MustCompile(`(?i)<style`), "style element"},
		{regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`), "resource from another origin"},
	}
	js := []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('style'", `setAttribute("style"`, "javascript:", "http://", "https://", "localStorage"}
	for p, body := range readAll(t) {
		switch path.Ext(p) {
		case ".html":
			for _, c := range html {
				for _, m := range c.re.FindAllString(body, -1) {
					if c.why == "script" && strings.Contains(m, ` src="`) {
						continue
					}
					t.Errorf("%s: %s %q", p, c.why, m)
				}
			}
		case ".js":
			for _, bad := range js {
				if strings.Contains(body, bad) {
					t.Errorf("%s contains %q", p, bad)
				}
			}
		case ".css":
			if strings.Contains(body, "@import") || strings.Contains(body, "url(") {
				t.Errorf("%s loads other resources (@import or url())", p)
			}
		}
	}
}

var (
	importRe = regexp.MustCompile(`(?m)^import\s+(?:\{([^}]*)\}|\*\s+as\s+\w+)\s+from\s+'([^']+)';`)
	exportRe = regexp.MustCompile(`(?m)^export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)`)
	reexpRe  = regexp.MustCompile(`(?m)^export\s*\{([^}]*)\}`)
)

// Without a build step, a mistyped module path or import name shows only in a browser;
// this test links the module graph from app.js instead, and finds files nothing loads.
func TestModuleGraphLinks(t *testing.T) {
	files := readAll(t)
	exports := map[string]map[string]bool{}
	for p, body := range files {
		if path.Ext(p) != ".js" {
			continue
		}
		names := map[string]bool{}
		for _, m := range exportRe.FindAllStringSubmatch(body, -1) {
			names[m[1]] = true
		}
		for _, m := range reexpRe.FindAllStringSubmatch(body, -1) {
			for _, n := range strings.Split(m[1], ",") {
				if f := strings.Fields(n); len(f) > 0 {
					names[f[len(f)-1]] = true
				}
			}
		}
		exports[p] = names
	}
	reached := map[string]bool{}
	var visit func(p string)
	visit = func(p string) {
		if reached[p] {
			return
		}
		reached[p] = true
		for _, m := range importRe.FindAllStringSubmatch(files[p], -1) {
			target := path.Join(path.Dir(p), m[2])
			if _, ok := files[target]; !ok {
				t.Errorf("%s imports %s, which does not exist", p, m[2])
				continue
			}
			for _, n := range strings.Split(m[1], ",") {
				f := strings.Fields(n)
				if len(f) == 0 {
					continue
				}
				if !exports[target][f[0]] {
					t.Errorf("%s imports %s from %s, which does not export it", p, f[0], m[2])
				}
			}
			visit(target)
		}
	}
	visit("js/app.js")
	for p := range exports {
		if !reached[p] {
			t.Errorf("%s is embedded but no module imports it", p)
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
