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

// PushBackends stores backends stamped with version and deletes the deleted ones; with
// replace it deletes every backend not in the push. Endpoint addresses that are DNS names
// are resolved here, because the balancer can only connect to IP addresses: push again to
// follow a DNS change.
func (c *AdminClient) PushBackends(ctx context.Context, version int64, backends []api.Backend, deleted []string, replace bool) error {
	resolved, err := c.resolve(ctx, backends)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/backends", pushBody{Version: version, Backends: resolved, Deleted: deleted, Replace: replace}, nil)
}

// PushCertificates stores certificates (with their keys) stamped with version, for
// ssl_certificate_by_lua; deleted and replace work as for PushBackends.
func (c *AdminClient) PushCertificates(ctx context.Context, version int64, certs []api.Certificate, deleted []string, replace bool) error {
	body := pushBody{Version: version, Deleted: deleted, Replace: replace}
	for _, ct := range certs {
		if ct.Key == "" {
			return fmt.Errorf("push certificate %q: the key is missing", ct.Name)
		}
		body.Certificates = append(body.Certificates, pushCertificate{Name: ct.Name, Cert: ct.Cert, Key: ct.Key})
	}
	return c.do(ctx, http.MethodPost, "/certificates", body, nil)
}
