package nginx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// pushBody is what POST /backends and POST /certificates take.
type pushBody struct {
	Version      int64             `json:"version"`
	Backends     []api.Backend     `json:"backends,omitempty"`
	Certificates []pushCertificate `json:"certificates,omitempty"`
	Deleted      []string          `json:"deleted,omitempty"`
	// Replace deletes everything not in the push.
	Replace bool `json:"replace,omitempty"`
	// CountersEpoch, when set, asks a backends push to answer the backend counters of
	// that epoch too (see PushBackendsAndCount).
	CountersEpoch *int64 `json:"countersEpoch,omitempty"`
}

type pushCertificate struct {
	Name string `json:"name"`
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// pushAnswer is what a push answers: the objects the admin endpoint could not store (a
// shared dict that is full), each left as it was, and the backend counters when the push
// asked for them. The counters stay encoded: the push's answer is on the way of a change
// to the whole fleet, the counters are for the report that follows it.
type pushAnswer struct {
	Skipped []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"skipped"`
	Counters json.RawMessage `json:"counters"`
}

func (a pushAnswer) objects(kind string) []api.SkippedObject {
	var out []api.SkippedObject
	for _, s := range a.Skipped {
		out = append(out, api.SkippedObject{Kind: kind, Name: s.Name, Reason: s.Reason})
	}
	return out
}

// PushBackends stores backends stamped with version and deletes the deleted ones; with
// replace it deletes every backend not in the push. Endpoint addresses that are DNS names
// are resolved here, because the balancer can only connect to IP addresses: push again to
// follow a DNS change. A backend that cannot be applied (its name does not resolve, or
// only to refused addresses; the shared dict is full) is left out and returned in
// skipped; the others apply.
func (c *AdminClient) PushBackends(ctx context.Context, version int64, backends []api.Backend, deleted []string, replace bool) (skipped []api.SkippedObject, err error) {
	skipped, _, err = c.pushBackends(ctx, pushBody{Version: version, Deleted: deleted, Replace: replace}, backends)
	return skipped, err
}

// PushBackendsAndCount is PushBackends whose answer also carries the backend counters,
// as BackendCounters(version) returns them, read right after the push stored its
// backends: it makes version the counting epoch. counters is their JSON encoding
// (DecodeCounters), nil when the endpoint did not answer them.
func (c *AdminClient) PushBackendsAndCount(ctx context.Context, version int64, backends []api.Backend, deleted []string, replace bool) (skipped []api.SkippedObject, counters json.RawMessage, err error) {
	return c.pushBackends(ctx, pushBody{Version: version, Deleted: deleted, Replace: replace, CountersEpoch: &version}, backends)
}

func (c *AdminClient) pushBackends(ctx context.Context, body pushBody, backends []api.Backend) ([]api.SkippedObject, json.RawMessage, error) {
	resolved, skipped := resolve(ctx, c.resolver, backends)
	body.Backends = resolved
	var ans pushAnswer
	if err := c.do(ctx, http.MethodPost, "/backends", body, &ans); err != nil {
		return nil, nil, err
	}
	// Counters stay nil when workers of an older restyplane (an adopted nginx) ignored the
	// ask: the push itself applied, and the caller reads the counters as before.
	if len(ans.Counters) == 0 || string(ans.Counters) == "null" {
		ans.Counters = nil
	}
	return append(skipped, ans.objects(api.KindBackend)...), ans.Counters, nil
}

// DecodeCounters decodes the counters a push answered (PushBackendsAndCount).
func DecodeCounters(raw json.RawMessage) (map[string]Counter, error) {
	out := map[string]Counter{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode the counters a push answered: %w", err)
	}
	return out, nil
}

// PushCertificates stores certificates (with their keys) stamped with version, for
// ssl_certificate_by_lua; deleted, replace and skipped work as for PushBackends.
func (c *AdminClient) PushCertificates(ctx context.Context, version int64, certs []api.Certificate, deleted []string, replace bool) ([]api.SkippedObject, error) {
	body := pushBody{Version: version, Deleted: deleted, Replace: replace}
	for _, ct := range certs {
		if ct.Key == "" {
			return nil, fmt.Errorf("push certificate %q: the key is missing", ct.Name)
		}
		body.Certificates = append(body.Certificates, pushCertificate{Name: ct.Name, Cert: ct.Cert, Key: ct.Key})
	}
	var ans pushAnswer
	if err := c.do(ctx, http.MethodPost, "/certificates", body, &ans); err != nil {
		return nil, err
	}
	return ans.objects(api.KindCertificate), nil
}
