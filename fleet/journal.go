package fleet

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/restyplane/restyplane/api"
)

// journalFile holds, one JSON line each, the deltas from the state in stateFile to each
// state applied since. Encoding and syncing the whole state after every change cost an
// agent of 5,000 backends half a megabyte of JSON per change; a delta is a few hundred
// bytes. The whole state is written again once the journal holds journalMaxLines lines or
// journalMaxBytes bytes, and whenever a snapshot (a new chain) was applied.
//
// A journal line is written but not synced. A process that dies (kill -9, a panic)
// loses nothing: the line is in the page cache. Only a crash of the machine can lose the
// newest lines, and then the agent starts from an older but whole state (a torn last line
// is skipped) and the feed, resumed from that revision, sends the rest. An fsync per change
// cost every agent a disk flush per change, and the Go runtime's monitor thread spun
// through the whole blocking call: the largest single share of an agent's CPU per change.
// The state file, written rarely, is still written atomically and durably (save).
const (
	journalFile     = "state.journal"
	journalMaxLines = 100
	journalMaxBytes = 1 << 20
)

// onDisk is what the data dir holds: the state it gives, its chain, and the journal's
// size. state is nil until this process wrote a snapshot, so that the first write after a
// start is a whole one and never appends to a journal with a torn last line.
type onDisk struct {
	state        *api.State
	chain        int64
	lines, bytes int
	// journal is the journal file, kept open between appends: opening and closing it for
	// each line cost seven system calls per change (the runtime tries to add every file
	// it opens to its poller).
	journal *os.File
}

// closeJournal closes the journal file if it is open.
func (d *onDisk) closeJournal() {
	if d.journal != nil {
		d.journal.Close()
		d.journal = nil
	}
}

// whole reports whether write(h) writes a whole state file rather than a journal line.
func (d *onDisk) whole(h heldState) bool {
	return d.state == nil || h.chain != d.chain || h.st.Revision <= d.state.Revision ||
		d.lines >= journalMaxLines || d.bytes >= journalMaxBytes
}

// write makes h's state the one the data dir gives: a line appended to the journal when h
// follows from what is there by deltas, else a new state file and no journal.
func (d *onDisk) write(dir string, h heldState) error {
	if d.whole(h) {
		// Within a chain, the new state file comes first: the journal's lines are then
		// all older than it, and skipped, should a crash keep them. Otherwise (a new
		// chain, or the first write since the start) the journal goes first, durably: a
		// crash between the two leaves the old state file alone, an older but whole state,
		// never another chain's deltas on the new file.
		sameChain := d.state != nil && h.chain == d.chain && h.st.Revision > d.state.Revision
		d.closeJournal()
		if !sameChain {
			if err := removeJournal(dir); err != nil {
				return err
			}
			if err := syncDir(dir); err != nil {
				return err
			}
		}
		if err := save(dir, h.st); err != nil {
			return err
		}
		if sameChain {
			if err := removeJournal(dir); err != nil {
				return err
			}
		}
		*d = onDisk{state: h.st, chain: h.chain}
		return nil
	}
	m := api.Delta(d.state, h.st)
	b, err := json.Marshal(&m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if d.journal == nil {
		j, err := os.OpenFile(filepath.Join(dir, journalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("open the journal: %w", err)
		}
		d.journal = j
	}
	if _, err := d.journal.Write(b); err != nil {
		d.closeJournal()
		d.state = nil // the journal may end in a torn line: the next write is a whole state
		return fmt.Errorf("append to the journal: %w", err)
	}
	d.state, d.lines, d.bytes = h.st, d.lines+1, d.bytes+len(b)
	return nil
}

// replayJournal applies the journal's deltas to st, the state file's state, and returns
// the result and the lines applied. It stops at the first line that does not decode (a
// write a crash cut short); lines not newer than the state so far are skipped.
func replayJournal(dir string, st *api.State) (*api.State, int) {
	j, err := os.Open(filepath.Join(dir, journalFile))
	if err != nil {
		return st, 0
	}
	defer j.Close()
	r := bufio.NewReader(j)
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return st, n // the end, or a last line without its newline: cut short
		}
		var m api.FeedMessage
		if json.Unmarshal(line, &m) != nil || m.Type != api.FeedDelta {
			return st, n
		}
		if m.Revision > st.Revision {
			st = m.ApplyTo(st)
			n++
		}
	}
}

// removeJournal removes the journal, if there is one.
func removeJournal(dir string) error {
	if err := os.Remove(filepath.Join(dir, journalFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the journal: %w", err)
	}
	return nil
}

// syncDir makes the directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
