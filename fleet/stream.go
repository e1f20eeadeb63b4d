package fleet

import (
	"bufio"
	"context"
	"encoding/json"
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
	from := f.head.Get().Revision
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
	dec := json.NewDecoder(r)
	for {
		var m api.FeedMessage
		if err := dec.Decode(&m); err != nil {
			return got, fmt.Errorf("read feed: %w", dead(err))
		}
		got = true
		switch m.Type {
		case api.FeedSnapshot:
			f.setHead(m.ApplyTo(nil), true)
		case api.FeedDelta:
			f.setHead(m.ApplyTo(f.Head()), false)
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
