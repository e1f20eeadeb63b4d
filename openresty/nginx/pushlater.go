package nginx

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// PendingPush is a backends push that was sent and whose answer is still to be read
// (SendBackends, Instance.SendPush). Answer must be called once: until then no other push
// goes on its connection.
type PendingPush struct {
	method, path string
	x            *exchange
	skipped      []api.SkippedObject // the backends resolve left out
	keep         func(counters json.RawMessage)
}

// SendBackends is PushBackendsAndCount, sent on a connection of its own that the runtime's
// poller does not watch (quietconn.Unpolled), and returned from as soon as it is written:
// nginx's answer wakes no thread of this process, and Answer reads it when the caller
// looks, usually long after it came. An agent looks when it is awake anyway (see
// openresty.Applier.AnswerLater): a second wake-up per change, for the answer alone, was
// half of what an agent cost while a change spread through a fleet.
func (c *AdminClient) SendBackends(ctx context.Context, version int64, backends []api.Backend, deleted []string) (*PendingPush, error) {
	resolved, skipped := resolve(ctx, c.resolver, backends)
	body, err := json.Marshal(pushBody{Version: version, Backends: resolved, Deleted: deleted, CountersEpoch: &version})
	if err != nil {
		return nil, err
	}
	p := &PendingPush{method: http.MethodPost, path: "/backends", skipped: skipped}
	if p.x, err = c.later.start(ctx, p.method, p.path, body); err != nil {
		return nil, decodeAnswer(p.method, p.path, 0, nil, err, nil)
	}
	return p, nil
}

// Answer reads the push's answer, waiting for it only if it has not come: the objects
// left out, and when nginx stored the push (zero when its workers do not say, as those of
// an older restyplane's adopted nginx).
func (p *PendingPush) Answer(ctx context.Context) (skipped []api.SkippedObject, applied time.Time, err error) {
	status, data, err := p.x.end(ctx)
	var ans struct {
		pushAnswer
		AppliedAt string `json:"appliedAt"`
	}
	if err := decodeAnswer(p.method, p.path, status, data, err, &ans); err != nil {
		return nil, time.Time{}, err
	}
	if p.keep != nil {
		if len(ans.Counters) == 0 || string(ans.Counters) == "null" {
			ans.Counters = nil
		}
		p.keep(ans.Counters)
	}
	return append(p.skipped, ans.objects(api.KindBackend)...), parseUnix(ans.AppliedAt), nil
}

// parseUnix reads seconds since the epoch with up to nine decimals ("1764214884.123456"),
// the zero time for anything else.
func parseUnix(s string) time.Time {
	sec, frac, _ := strings.Cut(s, ".")
	secs, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || secs <= 0 || len(frac) > 9 {
		return time.Time{}
	}
	var nsec int64
	if frac != "" {
		if nsec, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil || nsec < 0 {
			return time.Time{}
		}
	}
	return time.Unix(secs, nsec)
}

// SendsLater reports whether SendPush takes p: a push of backends alone, changed or
// deleted, not a full one, on an instance whose pushes carry the counters
// (CountersWithPush, an agent's).
func (in *Instance) SendsLater(p render.Push) bool {
	return in.opts.CountersWithPush && !p.Full && len(p.Backends)+len(p.DeletedBackends) > 0 &&
		len(p.Certificates)+len(p.DeletedCerts)+len(p.Policies)+len(p.DeletedPolicies) == 0
}

// SendPush sends p, which SendsLater takes, stamped with version, and returns before
// nginx answers (SendBackends); the counters its answer carries are kept for the next
// Counters of that epoch, as Push keeps them.
func (in *Instance) SendPush(ctx context.Context, version int64, p render.Push) (*PendingPush, error) {
	sent, err := in.admin.SendBackends(ctx, version, p.Backends, p.DeletedBackends)
	if err != nil {
		return nil, err
	}
	sent.keep = func(c json.RawMessage) { in.keepCounters(version, c) }
	return sent, nil
}
