package render

import (
	"fmt"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// forwardedVars are the X-Forwarded-* values with settings' useForwardedHeaders: the maps
// of the template pass on what the client sent, and fill in what the proxy sees where it
// sent nothing.
var forwardedVars = map[string]string{
	"X-Forwarded-For":   "$rp_forwarded_for",
	"X-Forwarded-Proto": "$rp_forwarded_proto",
	"X-Forwarded-Host":  "$rp_forwarded_host",
	"X-Forwarded-Port":  "$rp_forwarded_port",
}

// proxyHeaders returns the headers every location sends unless it sets them itself: the
// defaults, their X-Forwarded-* passed on with useForwardedHeaders, and settings'
// proxySetHeaders, which replace a default of the same name.
func proxyHeaders(s api.Settings) []defaultHeader {
	out := make([]defaultHeader, 0, len(defaultHeaders)+len(s.ProxySetHeaders))
	for _, d := range defaultHeaders {
		if v, ok := forwardedVars[d.Name]; ok && s.UseForwardedHeaders {
			d.Value = v
		}
		replaced := false
		for _, h := range s.ProxySetHeaders {
			replaced = replaced || strings.EqualFold(h.Name, d.Name)
		}
		if !replaced {
			out = append(out, d)
		}
	}
	for _, h := range s.ProxySetHeaders {
		out = append(out, defaultHeader{Name: h.Name, Value: h.Value, Quote: true})
	}
	return out
}

// proxyHeaderQuote quotes a proxySetHeaders value, in which nginx expands '$': every '$'
// must start one of api.ProxyHeaderVariables, which nginx defines, never another.
func proxyHeaderQuote(s string) (string, error) {
	if err := api.ValidProxyHeaderValue("value", s); err != nil {
		return "", fmt.Errorf("header value %q: %w", s, err)
	}
	return quoteRaw(s)
}

// namedServerHeaders returns defs for a block that is never the default server: it sends
// the client's Host header as it is, without the $rp_host map that fills in a missing one,
// whose lookup costs every proxied request about 1,100 instructions (3% of nginx's work).
// Only a request without a Host header needs the map, and nginx routes one to the default
// server, except one that names its host in an absolute request target (HTTP/1.0 alone
// may omit the header): such a request is sent upstream without a Host.
func namedServerHeaders(defs []defaultHeader) []defaultHeader {
	out := make([]defaultHeader, len(defs))
	for i, d := range defs {
		if d == (defaultHeader{Name: "Host", Value: "$rp_host"}) {
			d.Value = "$http_host"
		}
		out[i] = d
	}
	return out
}
