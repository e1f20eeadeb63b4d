package server

import (
	"encoding/json"
	"sync"

	"github.com/restyplane/restyplane/api"
)

// feedLines encodes each feed line toward the head once for every stream. When a revision
// lands, all connected agents stand at the same previous revision, so they need the same
// delta: computing and encoding it per stream cost the control plane a state walk and a
// JSON encoding per agent per change; now it is one of each per change, and every stream
// writes the same bytes.
type feedLines struct {
	history string // the history's id, on every line
	mu      sync.Mutex
	head    *api.State             // the state the held lines lead to
	lines   map[int64]*encodedLine // by the revision a stream sent last; snapshotFrom for none
}

// snapshotFrom keys the snapshot of the head: no revision is negative.
const snapshotFrom = -1

// encodedLine is one line, encoded by the first stream that needs it.
type encodedLine struct {
	once sync.Once
	b    []byte
	err  error
}

// line returns the encoded line (newline included) that brings a stream which sent from
// last to head: the snapshot of head when from is nil, else the delta between them. States
// at one revision are equal, so lines are shared by the revision alone.
func (c *feedLines) line(from, head *api.State) ([]byte, error) {
	key := int64(snapshotFrom)
	if from != nil {
		key = from.Revision
	}
	c.mu.Lock()
	if c.head != head {
		// A new head: the lines toward the old one are never asked for again.
		c.head, c.lines = head, map[int64]*encodedLine{}
	}
	l := c.lines[key]
	if l == nil {
		l = &encodedLine{}
		c.lines[key] = l
	}
	c.mu.Unlock()
	// Outside the lock: a snapshot of thousands of backends does not hold up the deltas.
	l.once.Do(func() {
		var m api.FeedMessage
		if from == nil {
			m = api.Snapshot(head)
		} else {
			m = api.Delta(from, head)
		}
		m.History = c.history
		l.b, l.err = json.Marshal(&m)
		l.b = append(l.b, '\n')
	})
	return l.b, l.err
}
