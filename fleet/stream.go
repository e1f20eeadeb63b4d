package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Run follows the feed, persists applied states and sends reports until ctx ends. It
// reconnects after any failure with exponential backoff and jitter, resuming from the
// revision it holds.
func (f *Follower) Run(ctx context.Context) error {
	go f.persistLoop(ctx)
	go f.reportLoop(ctx)
	fails := 0
	for {
		got, err := f.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if got {
			fails = 0
		}
		fails++
		d := backoff(fails, f.opts.MinBackoff, f.opts.MaxBackoff, rand.Float64)
		// A refusal is a mistake in this agent's settings, not an outage: it says so at the
		// error level, and still retries, since an admin may fix it on the other side.
		if refusal(err) {
			f.log.Error("feed refused", "err", err, "retryIn", d)
		} else {
			f.log.Warn("feed interrupted", "err", err, "retryIn", d)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
	}
}

// backoff is the delay before reconnect attempt n (1, 2, ...): doubling from min up to
// max, each drawn uniformly from its upper half, so that agents cut off together do not
// return together.
func backoff(n int, min, max time.Duration, random func() float64) time.Duration {
	d := min
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d/2 + time.Duration(random()*float64(d/2))
}

// gone is the control plane's answer to a resume point it does not hold.
type gone struct{ msg string }

func (g gone) Error() string { return "resume point gone: " + g.msg }

// follow reads one stream until it fails; got says whether it delivered a line.
func (f *Follower) follow(ctx context.Context) (got bool, err error) {
	f.mu.Lock()
	from, history := f.head.Get().Revision, f.history
	if f.relist {
		from = 0
	}
	f.mu.Unlock()
	cred, err := f.credential(ctx)
	if err != nil {
		return false, err
	}
	q := url.Values{"instance": {f.opts.Name}}
	if from > 0 {
		q.Set("from", strconv.FormatInt(from, 10))
		if history != "" {
			q.Set("history", history)
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(sctx, "GET", f.opts.ControlPlane+"/api/v1/feed?"+q.Encode(), nil)
	if err != nil {
		return false, err
	}
	f.authorize(req, cred)
	// A stream silent for longer than the read timeout is dead: cancelling its context
	// ends the read below.
	var silent atomic.Bool
	idle := time.AfterFunc(f.opts.ReadTimeout, func() {
		silent.Store(true)
		cancel()
	})
	defer idle.Stop()
	dead := func(err error) error {
		if silent.Load() {
			return fmt.Errorf("no answer or line from the control plane for %s, taken for dead", f.opts.ReadTimeout)
		}
		return err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return false, dead(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusGone {
		// The history does not hold our revision (another history, or pruned): list again.
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		f.log.Warn("resume point gone, listing again", "from", from, "answer", string(b))
		f.mu.Lock()
		f.relist = true // the next follow asks for a snapshot; the head stays what it is
		f.mu.Unlock()
		return true, gone{string(b)}
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode == http.StatusUnauthorized {
			f.dropCredential(cred)
		}
		return false, &answerError{status: resp.StatusCode, url: "GET " + req.URL.Redacted(), body: string(b)}
	}
	r := bufio.NewReaderSize(&touchReader{r: resp.Body, touch: func() { idle.Reset(f.opts.ReadTimeout) }}, 64<<10)
	// older says that this stream sent a state older than the one held, which was kept: a
	// delta after it would start from that older state, not from the one held.
	older := false
	for {
		line, err := readLine(r, f.opts.MaxLine)
		if err != nil {
			return got, fmt.Errorf("read feed: %w", dead(err))
		}
		var m api.FeedMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return got, fmt.Errorf("read feed: %w", err)
		}
		got = true
		if m.Type != api.FeedSnapshot && m.Type != api.FeedDelta {
			continue
		}
		held := f.Head()
		f.mu.Lock()
		replaced := m.History != "" && f.history != "" && m.History != f.history
		f.mu.Unlock()
		switch {
		case replaced && m.Type == api.FeedDelta:
			// Another history's delta would change this one's state: list again.
			f.log.Warn("the control plane's history was replaced: taking a fresh snapshot", "history", m.History, "held", history)
			f.mu.Lock()
			f.relist = true
			f.mu.Unlock()
			return got, fmt.Errorf("the control plane's history was replaced")
		case replaced:
			f.log.Warn("the control plane's history was replaced: took a fresh snapshot", "history", m.History,
				"revision", m.Revision, "heldRevision", held.Revision)
		case m.Revision < held.Revision:
			// Revisions only move forward within one history.
			f.log.Warn("the feed sent an older revision than the one held: kept the held one", "revision", m.Revision, "held", held.Revision)
			older = true
			continue
		case older && m.Type == api.FeedDelta:
			f.mu.Lock()
			f.relist = true
			f.mu.Unlock()
			return got, fmt.Errorf("a delta from revision older than the held %d: listing again", held.Revision)
		}
		if m.Type == api.FeedSnapshot {
			f.setHead(m.ApplyTo(nil), true)
		} else {
			f.setHead(m.ApplyTo(held), false)
		}
		f.noteHistory(m.History)
	}
}

// readLine reads one line of at most max bytes, newline excluded.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			return nil, fmt.Errorf("a feed line longer than %d bytes", max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// noteHistory keeps the history of the state just held, in the data dir too, so that a
// restarted agent still notices a replaced history.
func (f *Follower) noteHistory(h string) {
	f.mu.Lock()
	changed := h != "" && h != f.history
	if changed {
		f.history = h
	}
	f.mu.Unlock()
	if changed {
		if err := writeSecret(f.opts.DataDir, historyFile, h); err != nil {
			f.log.Error("keep the history's id", "err", err)
		}
	}
}

// touchReader calls touch at every read that got bytes: the stream is alive.
type touchReader struct {
	r     io.Reader
	touch func()
}

func (t *touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.touch()
	}
	return n, err
}
