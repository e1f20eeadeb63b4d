package server

import (
	"encoding/json"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestFeedLinesEncodeOncePerRevision: streams standing at the same revision get the very
// same encoded delta; another starting point gets its own, and a snapshot is the whole
// head. The lines decode to what api.Delta and api.Snapshot say.
func TestFeedLinesEncodeOncePerRevision(t *testing.T) {
	s1 := api.NewState()
	s1.Revision = 1
	s1.Backends["a"] = &api.Backend{Name: "a", Version: 1}
	s1.Backends["b"] = &api.Backend{Name: "b", Version: 1}
	s2 := s1.Clone()
	s2.Revision = 2
	s2.Backends["a"] = &api.Backend{Name: "a", Version: 2}
	s3 := s2.Clone()
	s3.Revision = 3
	delete(s3.Backends, "b")

	var c feedLines
	decode := func(b []byte, err error) api.FeedMessage {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if b[len(b)-1] != '\n' {
			t.Fatalf("line %q does not end in a newline", b)
		}
		var m api.FeedMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	x, _ := c.line(s2, s3)
	y, _ := c.line(s2.Clone(), s3) // another stream, its own copy of revision 2
	if &x[0] != &y[0] {
		t.Fatal("two streams at revision 2 got separate encodings of the same delta")
	}
	if m := decode(c.line(s2, s3)); m.Type != api.FeedDelta || m.Revision != 3 || len(m.Backends) != 0 || len(m.DeletedBackends) != 1 {
		t.Fatalf("delta 2→3 = %+v", m)
	}
	if m := decode(c.line(s1, s3)); len(m.Backends) != 1 || m.Backends[0].Version != 2 || len(m.DeletedBackends) != 1 {
		t.Fatalf("delta 1→3 = %+v", m)
	}
	if m := decode(c.line(nil, s3)); m.Type != api.FeedSnapshot || len(m.Backends) != 1 {
		t.Fatalf("snapshot of 3 = %+v", m)
	}
	// A new head drops the lines toward the old one.
	s4 := s3.Clone()
	s4.Revision = 4
	s4.Backends["c"] = &api.Backend{Name: "c", Version: 4}
	if m := decode(c.line(s3, s4)); m.Revision != 4 || len(m.Backends) != 1 || m.Backends[0].Name != "c" {
		t.Fatalf("delta 3→4 = %+v", m)
	}
	if len(c.lines) != 1 {
		t.Fatalf("%d lines held after the head moved, want 1", len(c.lines))
	}
}
