package nginx_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// regexStepLimit is the backtracking budget of one match, in PCRE's match() calls: about
// a millisecond of one core for the interpreter that nginx's PCRE falls back to, and far
// more than a JIT-compiled match of a linear regex needs on 4 KiB.
const regexStepLimit = 100000

// regexProbe is a real nginx with the Lua module whose /match runs PCRE, as nginx's
// location matching does, on a path with a regex, under regexStepLimit: a regex that
// needs more backtracking than that fails with PCRE's "match limit" error.
type regexProbe struct{ addr string }

func startRegexProbe(tb testing.TB) *regexProbe {
	tb.Helper()
	dir, port := startLuaNginx(tb, func(luaPath string, port int) string {
		return fmt.Sprintf(`    access_log off;
    lua_package_path "%[1]s;;";
    lua_regex_match_limit %[2]d;
    client_body_buffer_size 64k;
    server {
        listen 127.0.0.1:%[3]d;
        location = /match {
            content_by_lua_block {
                ngx.req.read_body()
                local args = ngx.req.get_post_args()
                local from, _, err = ngx.re.find(args.path, args.re, "o")
                if err then
                    ngx.status = 500
                    ngx.say(err)
                    return
                end
                ngx.say(from and "match" or "no match")
            }
        }
    }
`, luaPath, regexStepLimit, port)
	})
	p := &regexProbe{addr: fmt.Sprintf("127.0.0.1:%d", port)}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := p.match("^/$", "/"); err == nil {
			return p
		} else if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Fatalf("the regex probe's nginx does not answer: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// match runs re on path in nginx and returns nginx's answer: "match", "no match", or
// PCRE's error.
func (p *regexProbe) match(re, path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	form := url.Values{"re": {re}, "path": {path}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+"/match", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b)), nil
}

// hardPaths are paths of at most 4 KiB made to make a backtracking engine work on re:
// long runs of each character re names, and of slashes and letters, each with and
// without a last character that no regex of the grammar matches at the end.
func hardPaths(re, unit string) []string {
	units := []string{"a", "/", "0", "ab", "a/", "/a", ".", "-", "_"}
	if unit != "" {
		units = append(units, unit)
	}
	for _, c := range re {
		if strings.ContainsRune("()[]{}|*+?^$\\", c) {
			continue
		}
		units = append(units, string(c))
	}
	var paths []string
	for _, u := range units {
		body := strings.Repeat(u, 4000/len(u))
		paths = append(paths, "/"+body, "/"+body+"\x01", "/"+body+"!")
	}
	return paths
}

// FuzzRegexCost proves ValidRegex's refusals on the real nginx: for every regex it
// accepts, no path of up to 4 KiB costs PCRE more than regexStepLimit steps (about a
// millisecond), where an ambiguous one such as ^/(\w|\d)*$ needs millions.
func FuzzRegexCost(f *testing.F) {
	for _, re := range []string{
		`/api(/|$)(.*)`, `^/(a|b)+$`, `/(.*)`, `^/static/.*\.(js|css)$`, `/v1/(.+)/(.+)`, `^/(.*)/(.*)$`,
		`^/api/([^/]+)/items/([^/]+)$`, `/?(.*)`, `^/(ab?)+c$`, `^/(a|bc)*$`, `^/[a-z]+-[0-9]+x$`,
		`^/(a|a)*$`, `^/(\w|\d)*$`, `^/(a|aa)+$`, `^/.*.*.*x$`, `^/(.*)/(.*)x$`, `^/(a+)+$`, `^/\w+\d+x$`,
		`^/([a-z]+/)*x$`, `^/(a|b|ab)*c$`, `^/[^/]*/[^/]*/[^/]*x$`, `^/(?i)(a|B)+$`,
	} {
		f.Add(re, "", []byte(nil))
	}
	f.Add("", "", []byte{3, 40, 7, 81, 2, 9, 200})
	probe := startRegexProbe(f)
	f.Fuzz(func(t *testing.T, re, unit string, shape []byte) {
		if len(shape) > 0 {
			re = regexOf(shape)
		}
		if len(unit) > 8 || api.ValidRegex("path", re) != nil {
			return
		}
		for _, path := range hardPaths(re, unit) {
			got, err := probe.match(re, path)
			if err != nil {
				t.Fatalf("%q on %d bytes: %v", re, len(path), err)
			}
			if got != "match" && got != "no match" {
				t.Fatalf("ValidRegex accepts %q, but PCRE gives up on a path of %d bytes (%q...): %s", re, len(path), path[:min(len(path), 12)], got)
			}
		}
	})
}

// regexOf builds a regex of ValidRegex's grammar from fuzz bytes, from the pieces that
// make backtracking: overlapping atoms, groups of alternatives, and every quantifier. Two
// bytes make a piece; a byte's low bits choose the atom, its high bits the quantifier.
func regexOf(shape []byte) string {
	atoms := []string{"a", "b", "/", ".", `\w`, `\d`, "[a-z]", "[^/]", "(a|b)", "(a|ab)", "(/|$)", "(ab)", "x"}
	quants := []string{"", "", "*", "+", "?", "{2}", "{1,3}", "{2,}"}
	var b strings.Builder
	b.WriteString("^/")
	depth := 0
	for i := 0; i+1 < len(shape) && i < 24; i += 2 {
		switch op := shape[i] % 16; {
		case op == 13 && depth < 3:
			b.WriteString("(")
			depth++
			continue
		case op == 14 && depth > 0:
			b.WriteString(")")
			depth--
		case op == 15 && depth > 0:
			b.WriteString("|")
			continue
		default:
			b.WriteString(atoms[int(op)%len(atoms)])
		}
		b.WriteString(quants[int(shape[i+1])%len(quants)])
	}
	b.WriteString(strings.Repeat(")", depth))
	if len(shape)%2 == 1 {
		b.WriteString("x$")
	}
	return b.String()
}
