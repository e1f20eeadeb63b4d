package api

import (
	"strings"
	"testing"
)

// TestSettingsProxyHeadersAndKeepalive: proxySetHeaders take literal values and the
// listed variables only; the upstream keepalive fields pass their grammars.
func TestSettingsProxyHeadersAndKeepalive(t *testing.T) {
	ph := func(n, v string) []ProxyHeader { return []ProxyHeader{{Name: n, Value: v}} }
	for _, c := range []struct {
		name  string
		set   func(*Settings)
		field string // "" when valid
	}{
		{"literal", func(s *Settings) { s.ProxySetHeaders = ph("X-Team", "checkout {eu}") }, ""},
		{"one variable", func(s *Settings) { s.ProxySetHeaders = ph("X-Request-ID", "$request_id") }, ""},
		{"variables in text", func(s *Settings) { s.ProxySetHeaders = ph("X-Origin", "$scheme://$host:$server_port") }, ""},
		{"variable then dash", func(s *Settings) { s.ProxySetHeaders = ph("X-Client", "$remote_addr-$remote_port") }, ""},
		{"variable not listed", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "$http_authorization") }, "proxySetHeaders[0].value"},
		{"listed name extended", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "$hostname") }, "proxySetHeaders[0].value"},
		{"braced variable", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "${host}") }, "proxySetHeaders[0].value"},
		{"lone dollar", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "5$") }, "proxySetHeaders[0].value"},
		{"quote", func(s *Settings) { s.ProxySetHeaders = ph("X-A", `a"b`) }, "proxySetHeaders[0].value"},
		{"newline", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "a\nb") }, "proxySetHeaders[0].value"},
		{"empty value", func(s *Settings) { s.ProxySetHeaders = ph("X-A", "") }, "proxySetHeaders[0].value"},
		{"name with space", func(s *Settings) { s.ProxySetHeaders = ph("X A", "v") }, "proxySetHeaders[0].name"},
		{"framing header", func(s *Settings) { s.ProxySetHeaders = ph("Transfer-Encoding", "chunked") }, "proxySetHeaders[0].name"},
		{"host", func(s *Settings) { s.ProxySetHeaders = ph("host", "example.com") }, "proxySetHeaders[0].name"},
		{"twice", func(s *Settings) {
			s.ProxySetHeaders = []ProxyHeader{{Name: "X-A", Value: "1"}, {Name: "x-a", Value: "2"}}
		}, "proxySetHeaders[1].name"},
		{"too many", func(s *Settings) {
			for i := 0; i <= MaxProxyHeaders; i++ {
				s.ProxySetHeaders = append(s.ProxySetHeaders, ProxyHeader{Name: "X-" + strings.Repeat("a", i+1), Value: "v"})
			}
		}, "proxySetHeaders"},
		{"keepalive timeout", func(s *Settings) { s.UpstreamKeepaliveTimeout, s.UpstreamKeepaliveRequests = "30s", 10000 }, ""},
		{"keepalive timeout bare number", func(s *Settings) { s.UpstreamKeepaliveTimeout = "60" }, "upstreamKeepaliveTimeout"},
		{"keepalive requests negative", func(s *Settings) { s.UpstreamKeepaliveRequests = -1 }, "upstreamKeepaliveRequests"},
		{"forwarded headers", func(s *Settings) { s.UseForwardedHeaders = true }, ""},
		{"trusted CIDR that does not parse", func(s *Settings) { s.RealIPFrom = []string{"10.0.0.0/40"} }, "realIPFrom[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := DefaultSettings()
			c.set(&s)
			err := s.Validate()
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case c.field != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error on %s", c.field)
			case c.field != "":
				if e, ok := err.(*Error); !ok || e.Field != c.field {
					t.Fatalf("Validate() = %v, want the field %s", err, c.field)
				}
			}
		})
	}
}
