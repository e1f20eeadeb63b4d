package server

import (
	"fmt"
	"net/http"
	"time"
)

// keepAliveEvery is how often an idle event stream sends a comment, so that proxies and
// browsers do not time it out.
const keepAliveEvery = 15 * time.Second

// events godoc
//
//	@Summary	Stream of new revisions (server-sent events)
//	@Description	Sends "event: revision" with the head revision at once and at every new head; a burst of revisions may arrive as one event with the newest id. Lets a UI refresh without polling.
//	@Tags		status
//	@Produce	text/event-stream
//	@Success	200	{string}	string	"the event stream"
//	@Failure	401	{object}	ErrorResponse
//	@Failure	429	{object}	ErrorResponse	"the token holds 16 event streams already"
//	@Security	BearerAuth
//	@Router		/api/v1/events [get]
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	release, err := s.streams.acquire(tokenFrom(r.Context()).ID, maxEventStreams, "event")
	if err != nil {
		return err
	}
	defer release()
	rc := http.NewResponseController(w)
	// The stream outlives any write timeout the http.Server has.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	keepAlive := time.NewTicker(keepAliveEvery)
	defer keepAlive.Stop()
	sent := int64(-1)
	for {
		// Take the channel before reading the head, so that a revision between the two
		// still wakes the loop.
		changed := s.history.HeadChanged()
		if head := s.history.Head().Revision; head != sent {
			if _, err := fmt.Fprintf(w, "id: %d\nevent: revision\ndata: {\"head\":%d}\n\n", head, head); err != nil {
				return nil
			}
			sent = head
			if err := rc.Flush(); err != nil {
				return nil
			}
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil
		case <-changed:
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
		}
	}
}
