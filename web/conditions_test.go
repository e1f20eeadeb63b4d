package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A location's request conditions (when) show in the server's location table, one line
// each, and an edit through the server form, which has no inputs for them, keeps them.
func TestServerLocationConditions(t *testing.T) {
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	when := map[string]any{
		"method": "GET",
		"headers": []any{
			map[string]any{"name": "X-Version", "value": "2"},
			map[string]any{"name": "X-Env", "type": "regex", "value": "^(dev|test)$"},
		},
		"query":  []any{map[string]any{"name": "page", "type": "exact", "value": "1"}},
		"scheme": "https",
	}
	// The location with conditions comes second, so that a form that kept the wrong row's
	// fields would show.
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{
			map[string]any{"path": "/", "backend": "web"},
			map[string]any{"path": "/api", "backend": "web", "when": when},
		}})
	before := locationWhens(t, rp)
	if before["/api"] == nil || before["/"] != nil {
		t.Fatalf("conditions as stored = %s, want them on /api alone", before)
	}

	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop", tid("location-table"))
	apiRow := `[data-testid="location-row"][data-path="/api"]`
	if got := b.text(apiRow); !containsAll(got, "when GET", "header X-Version = 2", "header X-Env ~ ^(dev|test)$", "query page = 1", "https only") {
		t.Fatalf("row /api = %q, want its conditions", got)
	}
	if got := b.text(`[data-testid="location-row"][data-path="/"]`); strings.Contains(got, "when") || strings.Contains(got, "header") || strings.Contains(got, "only") {
		t.Fatalf("row / = %q, want no conditions", got)
	}

	// An unrelated edit: one more hostname, with a reason.
	b.click(tid("server-edit"))
	b.waitVisible(tid("server-form"))
	b.click(tid("add-hostname"))
	b.typeInto(`[data-testid="hostname-rows"] > :last-child input`, "www.shop.test")
	b.typeInto(tid("server-reason"), "a second hostname")
	b.click(tid("form-submit"))
	b.waitText(tid("server-hostnames"), "www.shop.test")
	if d := cmp.Diff(before, locationWhens(t, rp)); d != "" {
		t.Fatalf("conditions after a hostname edit (-before +after):\n%s", d)
	}
	if got := b.text(apiRow); !containsAll(got, "when GET", "header X-Env ~ ^(dev|test)$", "https only") {
		t.Fatalf("row /api after the edit = %q, want its conditions", got)
	}

	// Removing the row above moves the location up; its conditions go with it.
	b.route("#/servers/shop/edit", tid("server-form"))
	b.click(`[data-testid="location-rows"] > :first-child [data-testid="remove-location"]`)
	b.typeInto(tid("server-reason"), "no root location")
	b.click(tid("form-submit"))
	b.waitFor("the detail without /", `!!document.querySelector('[data-testid="location-table"]') && !document.querySelector('[data-testid="location-row"][data-path="/"]')`)
	after := locationWhens(t, rp)
	if _, ok := after["/"]; ok {
		t.Fatalf("locations after removing / = %s", after)
	}
	if d := cmp.Diff(before["/api"], after["/api"]); d != "" {
		t.Fatalf("conditions of /api after removing / (-before +after):\n%s", d)
	}
}

// locationWhens is the server shop's locations' conditions as the API returns them, by
// path, each as raw JSON (null without conditions).
func locationWhens(t *testing.T, rp *restyplane) map[string]json.RawMessage {
	t.Helper()
	var srv struct {
		Locations []struct {
			Path string
			When json.RawMessage
		}
	}
	if code := rp.call(adminSecret, "GET", "/api/v1/servers/shop", nil, &srv); code != 200 {
		t.Fatalf("GET server shop = %d", code)
	}
	out := map[string]json.RawMessage{}
	for _, l := range srv.Locations {
		out[l.Path] = l.When
	}
	return out
}
