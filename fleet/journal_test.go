package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestJournalKeepsDeltasAndReplays: after a whole state, the states of the same chain
// are appended to the journal as deltas and a new follower loads the newest; a torn last
// line is ignored; a new chain (a snapshot from the feed) writes a whole state again and
// drops the journal.
func TestJournalKeepsDeltasAndReplays(t *testing.T) {
	dir := t.TempDir()
	s7 := api.NewState()
	s7.Revision = 7
	s7.Backends["web"] = &api.Backend{Name: "web", Version: 7}
	s7.Backends["old"] = &api.Backend{Name: "old", Version: 7}
	s7.Certificates["shop"] = &api.Certificate{Name: "shop", Key: "KEY", Version: 3}
	s8 := s7.Clone()
	s8.Revision = 8
	s8.Backends["web"] = &api.Backend{Name: "web", Version: 8}
	delete(s8.Backends, "old")
	s9 := s8.Clone()
	s9.Revision = 9
	s9.Backends["new"] = &api.Backend{Name: "new", Version: 9}

	var d onDisk
	for _, st := range []*api.State{s7, s8, s9} {
		if err := d.write(dir, heldState{st: st, chain: 1}); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *api.State {
		t.Helper()
		f := newTestFollower(t, dir)
		if err := f.Load(); err != nil {
			t.Fatal(err)
		}
		return f.Head()
	}
	if d.lines != 2 {
		t.Fatalf("%d journal lines, want 2", d.lines)
	}
	h := load()
	if h.Revision != 9 || h.Backends["web"].Version != 8 || h.Backends["old"] != nil || h.Backends["new"] == nil || h.Certificates["shop"].Key != "KEY" {
		t.Fatalf("loaded %+v", h)
	}
	// A crash in the middle of an append: the line is cut short.
	j, err := os.OpenFile(filepath.Join(dir, journalFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	j.WriteString(`{"type":"delta","revision":10,"backends":[{"na`)
	j.Close()
	if h := load(); h.Revision != 9 {
		t.Fatalf("after a torn line: revision %d, want 9", h.Revision)
	}
	// Another chain at a lower revision: a whole state, and no journal left to replay.
	other := api.NewState()
	other.Revision = 3
	if err := d.write(dir, heldState{st: other, chain: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, journalFile)); !os.IsNotExist(err) {
		t.Fatalf("journal after a new chain: %v", err)
	}
	if h := load(); h.Revision != 3 || len(h.Backends) != 0 {
		t.Fatalf("after a new chain: %+v", h)
	}
}

// TestJournalRotatesWithItsFileKeptOpen: the journal file stays open between appends;
// once it is full the whole state is written again and the appends that follow go to a
// new journal, not to the removed one, so a new follower loads the newest state.
func TestJournalRotatesWithItsFileKeptOpen(t *testing.T) {
	dir := t.TempDir()
	var d onDisk
	defer d.closeJournal()
	st := api.NewState()
	last := int64(journalMaxLines + 5)
	for rev := int64(1); rev <= last; rev++ {
		st = st.Clone()
		st.Revision = rev
		st.Backends["web"] = &api.Backend{Name: "web", Version: rev}
		if err := d.write(dir, heldState{st: st, chain: 1}); err != nil {
			t.Fatal(err)
		}
	}
	// Revision 1 was whole, 2 to journalMaxLines+1 journal lines, then whole again.
	if got, want := d.lines, int(last)-journalMaxLines-2; got != want {
		t.Fatalf("%d journal lines after the rotation, want %d", got, want)
	}
	f := newTestFollower(t, dir)
	if err := f.Load(); err != nil {
		t.Fatal(err)
	}
	if h := f.Head(); h.Revision != last || h.Backends["web"].Version != last {
		t.Fatalf("loaded revision %d (web at %d), want %d", h.Revision, h.Backends["web"].Version, last)
	}
}

// TestJournalLineFollowsItsReport: a journal line, like a whole state, is written once
// the report attempt that carried its apply record finished, not in the apply's own
// wake-up, which is on the way of the change to the rest of the fleet.
func TestJournalLineFollowsItsReport(t *testing.T) {
	dir := t.TempDir()
	f := newTestFollower(t, dir) // its control plane never answers: no report gets out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.persistLoop(ctx)
	s7 := api.NewState()
	s7.Revision = 7
	s7.Backends["web"] = &api.Backend{Name: "web", Version: 7}
	f.setHead(s7, true)
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 7, Outcome: api.OutcomeSuccess})
	f.reported(f.records)
	waitFile(t, filepath.Join(dir, stateFile), 10*time.Second)
	s8 := s7.Clone()
	s8.Revision = 8
	s8.Backends["web"] = &api.Backend{Name: "web", Version: 8}
	f.setHead(s8, false)
	_ = f.RecordApply(ctx, &api.ApplyRecord{Revision: 8, Outcome: api.OutcomeSuccess})
	// No report went out yet: the line waits (persistAfterReport is far longer than this
	// look, so the file cannot appear for any other reason).
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, journalFile)); err == nil {
			t.Fatal("the journal line was written before the report of its apply went out")
		}
	}
	f.reported(f.records)
	waitFile(t, filepath.Join(dir, journalFile), 10*time.Second)
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %s", path, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
