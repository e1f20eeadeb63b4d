package nginx_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestEWMASettlesARequestWithoutAnswer runs restyplane.ewma in a real nginx: a request
// counted in flight leaves it when its answer's header is observed, and also when it ends
// without an answer (its client left first), which has no header phase; never twice.
func TestEWMASettlesARequestWithoutAnswer(t *testing.T) {
	got := runLua(t, `
local ewma = require("restyplane.ewma")
local e = ewma.new({ { id = "a" } })
local function inflight() return e.stats.a and e.stats.a.inflight or 0 end
local function start()
    local picked = { e:pick({}) }
    return picked, e:settle_at_end(picked)
end
local left, answered = {}, {}
left[1], left[2] = start()       -- its client will leave before any answer
answered[1], answered[2] = start()
local out = { inflight() }
answered[1].settled = true       -- as the header phase does
e:observe(answered[1][1], 0.01, false)
answered = nil                   -- the answered request ends first
collectgarbage()
collectgarbage()
out[#out + 1] = inflight()
left = nil
collectgarbage()
collectgarbage()
out[#out + 1] = inflight()
ngx.say(table.concat(out, " "))
`)
	if got != "2 1 0" {
		t.Fatalf("in flight at the start, after the answered request, after the abandoned one = %q, want \"2 1 0\"", got)
	}
}

// runLua runs chunk as the content phase of a real nginx with restyplane's Lua modules and
// returns what it said.
func runLua(t *testing.T, chunk string) string {
	t.Helper()
	var lua string
	dir, port := startLuaNginx(t, func(luaPath string, port int) string {
		return fmt.Sprintf(`    access_log off;
    lua_package_path "%[1]s/?.lua;%[2]s;;";
    server {
        listen 127.0.0.1:%[3]d;
        location = /run {
            content_by_lua_block {
%[4]s
            }
        }
    }
`, lua, luaPath, port, chunk)
	}, func(dir string) {
		lua = filepath.Join(dir, "lua")
		if err := nginx.WriteLua(lua); err != nil {
			t.Fatal(err)
		}
	})
	client := &http.Client{Timeout: 10 * time.Second}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/run", port))
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
				t.Fatalf("the Lua chunk answered %d: %s\n%s", resp.StatusCode, b, log)
			}
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx does not answer: %v\n%s", err, log)
		}
	}
}
