package server

import (
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/restyplane/restyplane/api"
)

// feedKeepAlive is how often an idle feed stream sends a keep-alive line, so that an agent
// notices a dead connection (it gives up after about three missed ones).
const feedKeepAlive = 10 * time.Second

// feed godoc
//
//	@Summary	The data planes' feed: the head, then every change (NDJSON stream)
//	@Description	For an instance's credential only, and only for its own instance: the lines carry certificates' private keys. The first line is a snapshot of the head unless `from` is the head; when `from` is an older revision, a delta from it instead. Then, at each new head, one delta of what changed since the last line sent (a burst of revisions, or a slow reader, gets one delta covering them all), and a keep-alive line every 10 s. A `from` newer than the head or no longer in the history, or of another history than this control plane's (`history`, which every line carries), answers 410: list again without it.
//	@Tags		fleet
//	@Produce	application/x-ndjson
//	@Param		instance	query		string	false	"the agent's instance name: the credential's, when left out"
//	@Param		from		query		int		false	"the revision the agent holds"
//	@Param		history		query		string	false	"the history the agent's revision belongs to: another is 410"
//	@Param		X-Restyplane-Agent-Id	header	string	false	"the agent's identity: another agent's stream under the same name is refused (409)"
//	@Success	200			{object}	api.FeedMessage	"one message per line"
//	@Failure	400			{object}	ErrorResponse
//	@Failure	401			{object}	ErrorResponse
//	@Failure	403			{object}	ErrorResponse
//	@Failure	409			{object}	ErrorResponse
//	@Failure	410			{object}	ErrorResponse
//	@Failure	429			{object}	ErrorResponse	"the credential holds 4 feed streams already"
//	@Security	BearerAuth
//	@Router		/api/v1/feed [get]
func (s *Server) feed(w http.ResponseWriter, r *http.Request) error {
	name := r.URL.Query().Get("instance")
	if name == "" {
		name = tokenFrom(r.Context()).Instance
	}
	if err := api.ValidName("instance", name); err != nil {
		return err
	}
	if err := s.speaksFor(r, name); err != nil {
		return err
	}
	from, err := queryInt(r, "from", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	sent, err := s.resumePoint(r, from)
	if err != nil {
		return err
	}
	release, err := s.streams.acquire(tokenFrom(r.Context()).ID, maxFeedStreams, "feed")
	if err != nil {
		return err
	}
	defer release()
	rc := http.NewResponseController(w)
	// The stream outlives any write timeout the http.Server has.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Accel-Buffering", "no")
	id, err := agentID(r)
	if err != nil {
		return err
	}
	cut, err := s.fleet.connect(name, id)
	if err != nil {
		return err
	}
	defer s.fleet.disconnect(name)
	w.WriteHeader(http.StatusOK)
	bytesSent := s.fleet.feedBytes.WithLabelValues(name)
	// sendLine writes one encoded line, often one that other streams share (feedLines).
	sendLine := func(line []byte) error {
		n, err := w.Write(line)
		bytesSent.Add(float64(n))
		if err != nil {
			return err
		}
		return rc.Flush()
	}
	send := func(m *api.FeedMessage) error {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return sendLine(append(b, '\n'))
	}
	if sent != nil && sent.Revision == s.history.Head().Revision {
		// Nothing to send, but the agent learns at once that the stream is up.
		if err := send(&api.FeedMessage{Type: api.FeedKeepAlive, Revision: sent.Revision, History: s.feedLines.history}); err != nil {
			return nil
		}
	}
	keepAlive := time.NewTicker(s.keepAlive)
	defer keepAlive.Stop()
	for {
		// Take the channel before reading the head, so that a revision between the two
		// still wakes the loop. The delta is taken now, from what this stream sent last: a
		// reader that fell behind gets one delta, never a growing backlog.
		changed := s.history.HeadChanged()
		head := s.history.Head()
		if sent == nil || sent.Revision != head.Revision {
			line, err := s.feedLines.line(sent, head)
			if err != nil {
				s.log.Error("encode a feed line", "revision", head.Revision, "err", err)
				return nil
			}
			if err := sendLine(line); err != nil {
				return nil
			}
			sent = head
			keepAlive.Reset(s.keepAlive)
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil
		case <-cut:
			// The instance was revoked: its stream ends now, not at its next reconnect.
			return nil
		case <-changed:
		case <-keepAlive.C:
			if err := send(&api.FeedMessage{Type: api.FeedKeepAlive, Revision: sent.Revision}); err != nil {
				return nil
			}
		}
	}
}

// resumePoint returns the state at from, the point a stream's first delta starts from: nil
// for a snapshot. A from the history does not hold is 410 Gone, so the agent lists again.
func (s *Server) resumePoint(r *http.Request, from int64) (*api.State, error) {
	if from == 0 {
		return nil, nil
	}
	if h := r.URL.Query().Get("history"); h != "" && h != s.feedLines.history {
		return nil, api.Errorf(api.EGone, "revision %d is of history %.40q, not this one (%s): list again without from", from, h, s.feedLines.history)
	}
	head := s.history.Head()
	if from > head.Revision {
		return nil, api.Errorf(api.EGone, "revision %d is newer than the head %d: this is another history; list again without from", from, head.Revision)
	}
	if from == head.Revision {
		return head, nil
	}
	st, err := s.history.State(r.Context(), from, true)
	if api.ErrorCode(err) == api.ENotFound {
		return nil, api.Errorf(api.EGone, "revision %d is no longer in the history: list again without from", from)
	}
	return st, err
}
