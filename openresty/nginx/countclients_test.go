package nginx_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restyplane/restyplane/openresty/nginx"
)

// TestFailingClientsStayOutOfTheCountersWalk: every reading of the counters (each push's
// answer, the rollback watch's polls) walks the counters' dict under its lock. The distinct
// failing clients of an incident (one key each, up to the dict's size: tens of thousands)
// are kept apart, so that the walk stays as short as the list of servers and backends
// while a flood of addresses fails, and they are still counted.
func TestFailingClientsStayOutOfTheCountersWalk(t *testing.T) {
	var lua string
	dir, port := startLuaNginx(t, func(luaPath string, port int) string {
		return fmt.Sprintf(`    access_log off;
    lua_package_path "%[1]s/?.lua;%[2]s;;";
    lua_shared_dict restyplane_counters 1m;
    lua_shared_dict restyplane_clients 1m;
    set_real_ip_from 127.0.0.1;
    real_ip_header X-Real-IP;
    upstream failing {
        server 127.0.0.1:%[3]d;
    }
    server {
        listen 127.0.0.1:%[3]d;
        location = /fail {
            return 503;
        }
        location = /p {
            proxy_pass http://failing/fail;
            header_filter_by_lua_block {
                require("restyplane.count").log(nil, "shop", "web", true)
            }
        }
        location = /read {
            content_by_lua_block {
                local c = require("restyplane.counters").backends(0).web or {}
                local keys = #ngx.shared.restyplane_counters:get_keys(0)
                ngx.say(c.requests, " ", c.errors, " ", c.clients, " ", keys)
            }
        }
    }
`, lua, luaPath, port)
	}, func(dir string) {
		lua = filepath.Join(dir, "lua")
		if err := nginx.WriteLua(lua); err != nil {
			t.Fatal(err)
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	client := &http.Client{Timeout: 10 * time.Second}
	do := func(path, addr string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if addr != "" {
			req.Header.Set("X-Real-IP", addr)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b)), err
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, _, err := do("/read", ""); err == nil {
			break
		} else if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx does not answer: %v\n%s", err, log)
		}
	}
	const clients = 400
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < clients; i += 4 {
				addr := fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)
				if code, _, err := do("/p", addr); err != nil || code != 503 {
					errs <- fmt.Errorf("client %s: %d, %v", addr, code, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	_, got, err := do("/read", "")
	if err != nil {
		t.Fatal(err)
	}
	var req, fails, distinct, keys int
	if _, err := fmt.Sscan(got, &req, &fails, &distinct, &keys); err != nil {
		t.Fatalf("reading %q: %v", got, err)
	}
	if req != clients || fails != clients || distinct != clients {
		t.Fatalf("web counted %d requests, %d 5xx, %d distinct failing clients; want %d of each", req, fails, distinct, clients)
	}
	// r and e for the server, q and f for the backend, the watch epoch: a handful of keys.
	if keys > 10 {
		t.Fatalf("the counters' dict holds %d keys after %d failing clients: a reading walks every client", keys, clients)
	}
}
