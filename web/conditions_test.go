package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A location's request conditions (when) show in the server's location table, one line
// each, and an edit through the server form that does not touch them keeps them.
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

// The server form shows a location's request conditions in its inputs, and an edit there
// (a header value, a query condition added, the scheme) is stored exactly as edited.
func TestServerFormEditsConditions(t *testing.T) {
	rp := conditionsServer(t, map[string]any{
		"method": "GET",
		"headers": []any{
			map[string]any{"name": "X-Version", "value": "2"},
			map[string]any{"name": "X-Env", "type": "regex", "value": "^(dev|test)$"},
		},
		"query": []any{map[string]any{"name": "page", "type": "exact", "value": "1"}},
	})
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))

	const w = "locations[1].when"
	shown := map[string]string{
		w + ".method": "GET", w + ".scheme": "",
		w + ".headers[0].name": "X-Version", w + ".headers[0].type": "exact", w + ".headers[0].value": "2",
		w + ".headers[1].name": "X-Env", w + ".headers[1].type": "regex", w + ".headers[1].value": "^(dev|test)$",
		w + ".query[0].name": "page", w + ".query[0].type": "exact", w + ".query[0].value": "1",
		"locations[0].when.method": "", "locations[0].when.scheme": "",
	}
	for path, want := range shown {
		if got := b.value(field(path)); got != want {
			t.Errorf("input %s = %q, want %q", path, got, want)
		}
	}
	if n := b.count(`[data-field^="locations[0].when.headers"], [data-field^="locations[0].when.query"]`); n != 0 {
		t.Errorf("location / shows %d condition inputs, want none", n)
	}
	if open := evalJS[[]bool](b, `[...document.querySelectorAll('[data-testid="location-when"]')].map((d) => d.open)`); len(open) != 2 || open[0] || !open[1] {
		t.Errorf("conditions sections open = %v, want closed for / and open for /api", open)
	}

	b.typeInto(field(w+".headers[0].value"), "3")
	b.click(`[data-testid="location-rows"] > :nth-child(2) [data-testid="add-when-query"]`)
	if got := evalJS[string](b, `document.activeElement.dataset.field`); got != w+".query[1].name" {
		t.Errorf("focus after adding a query condition is on %q, want its name", got)
	}
	b.typeInto(field(w+".query[1].name"), "lang")
	b.choose(field(w+".query[1].type"), "regex")
	b.typeInto(field(w+".query[1].value"), "en|de")
	b.choose(field(w+".scheme"), "https")
	b.typeInto(tid("server-reason"), "API v3 for English and German, over HTTPS")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))

	got := locationWhens(t, rp)
	want := `{"method":"GET","headers":[{"name":"X-Version","value":"3"},{"name":"X-Env","type":"regex","value":"^(dev|test)$"}],` +
		`"query":[{"name":"page","type":"exact","value":"1"},{"name":"lang","type":"regex","value":"en|de"}],"scheme":"https"}`
	if string(got["/api"]) != want || got["/"] != nil {
		t.Fatalf("conditions stored = / %s, /api %s\nwant /api %s and none on /", got["/"], got["/api"], want)
	}
}

// Removing every condition of a location in the form stores the location without when. On a
// phone, the form with the conditions open fits the width.
func TestServerFormClearsConditions(t *testing.T) {
	rp := conditionsServer(t, map[string]any{
		"method":  "POST",
		"headers": []any{map[string]any{"name": "X-A", "value": "1"}},
		"query":   []any{map[string]any{"name": "q", "type": "regex", "value": "[0-9]+"}},
		"scheme":  "http",
	})
	b := newBrowser(t, rp.API, 390, 844)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))
	b.noHorizontalScroll("server form with conditions")
	const api = `[data-testid="location-rows"] > :nth-child(2) `
	for b.count(api+tid("remove-when-condition")) > 0 {
		b.click(api + tid("remove-when-condition"))
	}
	b.choose(field("locations[1].when.method"), "")
	b.choose(field("locations[1].when.scheme"), "")
	b.typeInto(tid("server-reason"), "every request to /api")
	b.click(tid("form-submit"))
	b.waitVisible(tid("server-detail"))
	if got := locationWhens(t, rp); got["/api"] != nil || got["/"] != nil {
		t.Fatalf("conditions stored = / %s, /api %s, want none", got["/"], got["/api"])
	}
	if got := b.text(`[data-testid="location-row"][data-path="/api"]`); strings.Contains(got, "when") || strings.Contains(got, "only") {
		t.Fatalf("row /api = %q, want no conditions", got)
	}
}

// A regex the API refuses is shown at its input, and nothing is stored.
func TestServerFormConditionError(t *testing.T) {
	rp := conditionsServer(t, map[string]any{"headers": []any{map[string]any{"name": "X-Env", "type": "regex", "value": "dev|test"}}})
	before, head := locationWhens(t, rp), rp.head()
	b := newBrowser(t, rp.API, 1280, 900)
	b.signIn(adminSecret)
	b.route("#/servers/shop/edit", tid("server-form"))
	const value = "locations[1].when.headers[0].value"
	b.typeInto(field(value), "(dev")
	b.typeInto(tid("server-reason"), "a broken regex")
	b.click(tid("form-submit"))
	b.waitText(fmt.Sprintf(`.field-error[data-error-for=%q]`, value), "regex does not compile")
	if got := evalJS[string](b, `document.activeElement.dataset.field + ' ' + document.activeElement.getAttribute('aria-invalid')`); got != value+" true" {
		t.Errorf("focus after the error = %q, want the invalid value input", got)
	}
	if d := cmp.Diff(before, locationWhens(t, rp)); d != "" || rp.head() != head {
		t.Fatalf("stored after a refused edit (head %d, was %d; -before +after):\n%s", rp.head(), head, d)
	}
}

// conditionsServer starts restyplane with a server shop whose second location, /api, has
// the conditions when; its first, /, has none.
func conditionsServer(t *testing.T, when map[string]any) *restyplane {
	t.Helper()
	rp := startRestyplane(t)
	_, port := upstream(t, "web")
	rp.must("POST", "/api/v1/backends", map[string]any{"name": "web", "endpoints": []any{map[string]any{"address": "127.0.0.1", "port": port}}})
	rp.must("POST", "/api/v1/servers", map[string]any{"name": "shop", "hostnames": []string{"shop.test"},
		"locations": []any{
			map[string]any{"path": "/", "backend": "web"},
			map[string]any{"path": "/api", "backend": "web", "when": when},
		}})
	return rp
}
