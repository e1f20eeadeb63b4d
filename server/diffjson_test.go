package server

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestWriteResultJSONMatchesEncodingJSON checks that the spliced answer is byte for byte what
// encoding/json writes, also when a message mimics the splice mark and bodies hold
// characters that encoding/json escapes.
func TestWriteResultJSONMatchesEncodingJSON(t *testing.T) {
	body := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	res := &api.WriteResult{
		Revision: &api.Revision{ID: 7, Parent: 6, Actor: "a", Message: `say "entries":[] <b>&`, ChangeCount: 3},
		Diff: api.Diff{From: 6, To: 7, Entries: []api.DiffEntry{
			{Kind: "backend", Name: "web", Op: "update", Before: body(map[string]string{"x": "<old>"}), After: body(map[string]any{"x": "é\u2028"})},
			{Kind: "server", Name: `odd"name`, Op: "create", After: body([]int{1, 2})},
			{Kind: "certificate", Name: "gone", Op: "delete", Before: body(map[string]string{})},
		}},
		Mode: "reload",
	}
	for _, r := range []*api.WriteResult{res, {Diff: api.Diff{From: 3, To: 3}, Noop: true}} {
		var want bytes.Buffer
		full := *r
		if full.Diff.Entries == nil {
			full.Diff.Entries = []api.DiffEntry{}
		}
		if err := json.NewEncoder(&want).Encode(full); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		if err := writeResultJSON(rec, 201, r); err != nil {
			t.Fatal(err)
		}
		if got := rec.Body.String(); got != want.String() {
			t.Fatalf("spliced answer\n%s\nencoding/json\n%s", got, want.String())
		}
		if rec.Code != 201 || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}
