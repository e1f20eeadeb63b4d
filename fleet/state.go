package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// stateFile is the last applied state, in the feed's snapshot form, keys included: a data
// plane must be able to serve its TLS servers without the control plane. The states
// applied since it was written are in journalFile, as deltas (see journal.go).
const stateFile = "state.json"

// Load reads the last applied state from the data dir, if there is one, and holds it as
// the head: the agent serves it until the control plane is reached.
func (f *Follower) Load() error {
	if err := os.MkdirAll(f.opts.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if err := os.Chmod(f.opts.DataDir, 0o700); err != nil {
		return fmt.Errorf("restrict data dir: %w", err)
	}
	id, err := loadID(f.opts.DataDir)
	if err != nil {
		return err
	}
	cred, err := loadCredential(f.opts.DataDir)
	if err != nil {
		return err
	}
	history, _ := os.ReadFile(filepath.Join(f.opts.DataDir, historyFile))
	f.mu.Lock()
	f.id, f.cred, f.history = id, cred, strings.TrimSpace(string(history))
	f.mu.Unlock()
	b, err := os.ReadFile(filepath.Join(f.opts.DataDir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read last applied state: %w", err)
	}
	var m api.FeedMessage
	if err := json.Unmarshal(b, &m); err != nil || m.Type != api.FeedSnapshot {
		return fmt.Errorf("read last applied state %s: not a snapshot (%v)", stateFile, err)
	}
	st := m.ApplyTo(nil)
	st, lines := replayJournal(f.opts.DataDir, st)
	f.setHead(st, true)
	f.log.Info("loaded the last applied state", "revision", st.Revision, "snapshotRevision", m.Revision, "journalLines", lines)
	return nil
}

// save writes st to state.json atomically and durably: a temporary file, fsync, rename,
// fsync of the directory. A crash leaves the old file or the new one, never half of one.
func save(dir string, st *api.State) error {
	b, err := json.Marshal(api.Snapshot(st))
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".state-*.json")
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, stateFile)); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer d.Close()
	return d.Sync()
}
