package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/restyplane/restyplane/api"
)

// reportLoop sends a report after each apply and a heartbeat every ReportEvery.
//
// The report of an apply goes out ReportDelay after the apply began. Traffic moved when
// nginx took the push; the report only tells the control plane, and waiting costs the
// fleet view tens of milliseconds while it buys three things: the applies of a burst of
// revisions share one report; where several data planes share cores, as on a
// consolidated node or in a test, the reports of a change no longer compete for them
// with the applies of that same change on the other instances; and the agent reads
// nginx's answer to the push at that same moment (the applier's AnswerLater, which the
// agent sets to ReportDelay), so that the answer and the report cost one wake-up between
// them. (No jitter: the reports of a fleet that arrive together share one transaction on
// the control plane, see reportBatcher.) The report says how long its newest apply
// waited (HeldMS), so the control plane's propagation figure leaves the wait out.
func (f *Follower) reportLoop(ctx context.Context) {
	t := time.NewTicker(f.opts.ReportEvery)
	defer t.Stop()
	for {
		heartbeat := false
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
			if !f.holdReport(ctx) {
				return
			}
		case <-t.C:
			heartbeat = true
		}
		if err := f.sendReport(ctx, heartbeat); err != nil && ctx.Err() == nil {
			if refusal(err) {
				f.log.Error("report refused", "err", err)
			} else {
				f.log.Debug("report", "err", err)
			}
		}
	}
}

// holdReport waits until ReportDelay after the newest pending apply began, then takes
// the kicks that came meanwhile: the report about to go carries their records. An apply
// whose answer was read late (AnswerLater) is past that already, and its report goes at
// once, in the same wake-up. False when ctx ended.
func (f *Follower) holdReport(ctx context.Context) bool {
	d := f.opts.ReportDelay
	if d <= 0 {
		return true
	}
	f.mu.Lock()
	var began time.Time
	for _, r := range f.pending {
		if r.Started.After(began) {
			began = r.Started
		}
	}
	f.mu.Unlock()
	if wait := d - time.Since(began); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	select {
	case <-f.kick:
	default:
	}
	return true
}

// sendReport posts what the reporter says with the apply records not yet reported; they
// stay pending until a report carrying them got through. heartbeat is passed on to the
// reporter.
func (f *Follower) sendReport(ctx context.Context, heartbeat bool) error {
	f.mu.Lock()
	// At most a report's worth of records: the rest go in the next report, sent at once.
	pending := append([]api.ApplyRecord(nil), f.pending[:min(len(f.pending), api.MaxReportApplies)]...)
	more := len(f.pending) > len(pending)
	reporter, upTo := f.reporter, f.records-int64(len(f.pending)-len(pending))
	base, cred := f.dropped, f.cred
	f.mu.Unlock()
	defer f.reported(upTo)
	if cred == "" {
		// Not joined yet (or refused): the feed's loop joins; the records wait.
		return nil
	}
	var rep api.Report
	if reporter != nil {
		rep = reporter(ctx, heartbeat)
	}
	rep.Version, rep.Applies = f.opts.Version, pending
	rep.HeldMS = heldFor(pending, time.Now())
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
	f.authorize(req, cred)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode == http.StatusUnauthorized {
			f.dropCredential(cred)
		}
		return &answerError{status: resp.StatusCode, url: "POST " + req.URL.Redacted(), body: string(b)}
	}
	f.mu.Lock()
	// Drop what this report carried, less what another report that carried the same
	// records dropped meanwhile.
	if n := base + int64(len(pending)) - f.dropped; n > 0 {
		f.pending = f.pending[n:]
		f.dropped += n
	}
	f.mu.Unlock()
	if more {
		select {
		case f.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// heldFor is how long the newest successful apply in recs has waited for its report since
// it finished, in milliseconds: a duration on the agent's clock alone, which the control
// plane may subtract whatever its own clock says.
func heldFor(recs []api.ApplyRecord, now time.Time) float64 {
	var newest *api.ApplyRecord
	for i := range recs {
		if recs[i].Outcome == api.OutcomeSuccess && (newest == nil || recs[i].Revision > newest.Revision) {
			newest = &recs[i]
		}
	}
	if newest == nil {
		return 0
	}
	done := newest.Started.Add(time.Duration(newest.DurationMS * float64(time.Millisecond)))
	// Capped at what the control plane takes: after an outage of more than a day, the
	// report must not be refused for it, or its records would never get through.
	return min(api.MaxHeldMS, max(0, float64(now.Sub(done))/float64(time.Millisecond)))
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
