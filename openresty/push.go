package openresty

import (
	"context"
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
}

type pushCertificate struct {
	Name string `json:"name"`
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// pushAnswer is what a push answers: the objects the admin endpoint could not store (a
// shared dict that is full), each left as it was.
type pushAnswer struct {
	Skipped []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"skipped"`
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
	resolved, skipped := resolve(ctx, c.resolver, backends)
	var ans pushAnswer
	if err := c.do(ctx, http.MethodPost, "/backends", pushBody{Version: version, Backends: resolved, Deleted: deleted, Replace: replace}, &ans); err != nil {
		return nil, err
	}
	return append(skipped, ans.objects(api.KindBackend)...), nil
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
