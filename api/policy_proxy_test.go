package api_test

import (
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestProxyPolicyValidation: the proxy, retry and errors policies take nginx's
// grammar and sizes that nginx -t accepts together, and a bad value names its field.
func TestProxyPolicyValidation(t *testing.T) {
	for _, c := range []struct {
		name  string
		loc   api.Location
		field string // "" when valid
	}{
		{"all set", api.Location{Proxy: &api.ProxyPolicy{BodySize: "10m", ClientBodyBufferSize: "16k", Buffering: "off",
			BufferSize: "8k", BuffersNumber: 4, RequestBuffering: "on", MaxTempFileSize: "1024m"},
			Retry:  &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_503", "non_idempotent"}, Tries: 3, Timeout: "10s"},
			Errors: &api.ErrorsPolicy{Codes: []int{404, 503}, Backend: "pages", Origin: &api.ErrorsOrigin{Namespace: "shop", ServicePort: "http"}}}, ""},
		{"no limit", api.Location{Proxy: &api.ProxyPolicy{BodySize: "0", MaxTempFileSize: "0"}}, ""},
		{"upper-case unit", api.Location{Proxy: &api.ProxyPolicy{BodySize: "1G"}}, ""},
		{"off alone", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"off"}}}, ""},
		{"size with a space", api.Location{Proxy: &api.ProxyPolicy{BodySize: "10 m"}}, "proxy.bodySize"},
		{"size with a directive", api.Location{Proxy: &api.ProxyPolicy{BufferSize: "8k;"}}, "proxy.bufferSize"},
		{"buffering maybe", api.Location{Proxy: &api.ProxyPolicy{Buffering: "maybe"}}, "proxy.buffering"},
		{"two buffers", api.Location{Proxy: &api.ProxyPolicy{BufferSize: "8k", BuffersNumber: 2}}, "proxy.buffersNumber"},
		{"buffers without a size", api.Location{Proxy: &api.ProxyPolicy{BuffersNumber: 8}}, "proxy.buffersNumber"},
		{"zero buffer", api.Location{Proxy: &api.ProxyPolicy{BufferSize: "0"}}, "proxy.bufferSize"},
		{"temp file under two buffers", api.Location{Proxy: &api.ProxyPolicy{BufferSize: "8k", MaxTempFileSize: "8k"}}, "proxy.maxTempFileSize"},
		{"unknown condition", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"error", "http_418"}}}, "retry.nextUpstream[1]"},
		{"off with another", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"off", "error"}}}, "retry.nextUpstream"},
		{"condition twice", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"error", "error"}}}, "retry.nextUpstream[1]"},
		{"too many tries", api.Location{Retry: &api.RetryPolicy{Tries: 12}}, "retry.tries"},
		{"same peer", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"error", "http_500"}, Tries: 4, SamePeer: true}}, ""},
		{"same peer without tries", api.Location{Retry: &api.RetryPolicy{NextUpstream: []string{"error"}, SamePeer: true}}, "retry.samePeer"},
		{"same peer, one try", api.Location{Retry: &api.RetryPolicy{Tries: 1, SamePeer: true}}, "retry.samePeer"},
		{"timeout without unit", api.Location{Retry: &api.RetryPolicy{Timeout: "10"}}, "retry.timeout"},
		{"no codes", api.Location{Errors: &api.ErrorsPolicy{Backend: "pages"}}, "errors.codes"},
		{"a 302", api.Location{Errors: &api.ErrorsPolicy{Codes: []int{302}, Backend: "pages"}}, "errors.codes[0]"},
		{"bad backend", api.Location{Errors: &api.ErrorsPolicy{Codes: []int{404}, Backend: "Pages!"}}, "errors.backend"},
		{"bad origin", api.Location{Errors: &api.ErrorsPolicy{Codes: []int{404}, Backend: "p", Origin: &api.ErrorsOrigin{Ingress: `a"b`}}}, "errors.origin.ingress"},
	} {
		l := c.loc
		l.Path, l.Backend = "/", "web"
		err := (&api.Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []api.Location{l}}).Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), "locations[0]."+c.field+":")):
			t.Errorf("%s: %v, want an error naming locations[0].%s", c.name, err, c.field)
		}
	}
}
