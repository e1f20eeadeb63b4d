package server_test

import (
	"net/http"
	"testing"
)

// TestConditionalRequests checks RFC 9110's preconditions on the real router and a real
// SQLite file: a write's If-Match (a list matches if any member does, "*" matches an
// existing object, weak tags and tags that name no version never match) and a GET's
// If-None-Match (304 with the ETag when it matches).
func TestConditionalRequests(t *testing.T) {
	const B = "/api/v1/backends"
	e := newEnv(t)
	e.must(http.StatusCreated, req{method: "POST", path: B + "?message=x", token: e.editor, body: backend("shop", 80)})
	e.must(http.StatusOK, req{method: "PUT", path: B + "/shop?message=x", token: e.editor, body: backend("shop", 81)})
	cur := e.must(http.StatusOK, req{method: "GET", path: B + "/shop", token: e.viewer}).header.Get("ETag")
	if cur != `"2"` {
		t.Fatalf("ETag = %s, want \"2\"", cur)
	}
	for _, c := range []struct {
		name, path, ifMatch string
		want                int
	}{
		{"stale tag that names no version", "/shop", `"stale-0"`, 412},
		{"stale version", "/shop", `"1"`, 412},
		{"weak tag of the current version", "/shop", `W/"2"`, 412},
		{"list without the current version", "/shop", `"1", "3"`, 412},
		{"list with the current version", "/shop", `"1", "2"`, 200},
		{"list with empty members", "/shop", `,"7" ,, "3"`, 200},
		{"star on an existing object", "/shop", `*`, 200},
		{"star on a missing object", "/cart", `*`, 412},
		{"version on a missing object", "/cart", `"1"`, 412},
		{"unquoted", "/shop", `5`, 400},
		{"unterminated", "/shop", `"5`, 400},
		{"two tags without a comma", "/shop", `"5""6"`, 400},
		{"star in a list", "/shop", `*, "5"`, 400},
		{"only commas", "/shop", `, ,`, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.revisions()
			b := backend(c.path[1:], 82+int(before))
			res := e.send(req{method: "PUT", path: B + c.path + "?message=x", token: e.editor, body: b,
				header: map[string]string{"If-Match": c.ifMatch}})
			if res.status != c.want {
				t.Fatalf("PUT with If-Match %s = %d, want %d: %s", c.ifMatch, res.status, c.want, res.body)
			}
			if got := e.revisions(); c.want != 200 && got != before {
				t.Fatalf("a refused write made a revision (%d -> %d)", before, got)
			}
		})
	}

	etag := e.must(http.StatusOK, req{method: "GET", path: B + "/shop", token: e.viewer}).header.Get("ETag")
	for _, c := range []struct {
		name, ifNoneMatch string
		want              int
	}{
		{"current version", etag, 304},
		{"weak current version", "W/" + etag, 304},
		{"list with the current version", `"1", ` + etag, 304},
		{"star", `*`, 304},
		{"stale version", `"1"`, 200},
		{"tag that names no version", `"stale-0"`, 200},
		{"malformed, ignored", `5`, 200},
	} {
		t.Run("GET If-None-Match "+c.name, func(t *testing.T) {
			res := e.send(req{method: "GET", path: B + "/shop", token: e.viewer, header: map[string]string{"If-None-Match": c.ifNoneMatch}})
			if res.status != c.want {
				t.Fatalf("GET with If-None-Match %s = %d, want %d", c.ifNoneMatch, res.status, c.want)
			}
			if got := res.header.Get("ETag"); got != etag {
				t.Fatalf("ETag = %q, want %q", got, etag)
			}
			if c.want == 304 && len(res.body) != 0 {
				t.Fatalf("304 with a body: %s", res.body)
			}
		})
	}
	e.must(http.StatusPreconditionFailed, req{method: "GET", path: B + "/shop", token: e.viewer, header: map[string]string{"If-Match": `"1"`}})
	e.must(http.StatusNotFound, req{method: "DELETE", path: B + "/cart?message=x", token: e.editor, header: map[string]string{"If-Match": `"1"`}})
	e.must(http.StatusOK, req{method: "GET", path: "/api/v1/config", token: e.viewer, header: map[string]string{"If-Match": `*`}})
	e.must(http.StatusPreconditionFailed, req{method: "PUT", path: "/api/v1/config?message=x", token: e.editor,
		body: map[string]any{"backends": []any{}, "servers": []any{}, "certificates": []any{}}, header: map[string]string{"If-Match": `"stale-0"`}})
}
