package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/restyplane/restyplane/api"
)

// reportLoop sends a report after each apply and a heartbeat every ReportEvery.
func (f *Follower) reportLoop(ctx context.Context) {
	t := time.NewTicker(f.opts.ReportEvery)
	defer t.Stop()
	for {
		heartbeat := false
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
		case <-t.C:
			heartbeat = true
		}
		if err := f.sendReport(ctx, heartbeat); err != nil && ctx.Err() == nil {
			f.log.Debug("report", "err", err)
		}
	}
}

// sendReport posts what the reporter says with the apply records not yet reported; they
// stay pending until a report carrying them got through. heartbeat is passed on to the
// reporter.
func (f *Follower) sendReport(ctx context.Context, heartbeat bool) error {
	f.mu.Lock()
	reporter, pending, upTo := f.reporter, append([]api.ApplyRecord(nil), f.pending...), f.records
	f.mu.Unlock()
	defer f.reported(upTo)
	var rep api.Report
	if reporter != nil {
		rep = reporter(ctx, heartbeat)
	}
	rep.Version, rep.Applies = f.opts.Version, pending
	body, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	u := f.opts.ControlPlane + "/api/v1/instances/" + url.PathEscape(f.opts.Name) + "/report"
	req, err := http.NewRequestWithContext(rctx, "POST", u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+f.opts.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("report answered %d: %s", resp.StatusCode, b)
	}
	f.mu.Lock()
	f.pending = f.pending[len(pending):]
	f.mu.Unlock()
	return nil
}

// reported notes that a report attempt carrying the first upTo apply records finished,
// whether it got through or not, and wakes persistLoop.
func (f *Follower) reported(upTo int64) {
	f.mu.Lock()
	f.reportedUpTo = max(f.reportedUpTo, upTo)
	f.mu.Unlock()
	select {
	case f.reportDone <- struct{}{}:
	default:
	}
}
