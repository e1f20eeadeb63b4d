package api

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ProxyPolicy is how a location handles request and response bodies (policies).
// Every field is optional; an empty one keeps the global settings or nginx's default.
// Sizes are in nginx's notation: a number, optionally followed by k, m or g.
type ProxyPolicy struct {
	// BodySize is the largest request body accepted (client_max_body_size); a larger one is
	// answered 413. "0" means no limit.
	BodySize string `json:"bodySize,omitempty" example:"10m"`
	// ClientBodyBufferSize is how much of a request body is kept in memory before it is
	// written to a temporary file.
	ClientBodyBufferSize string `json:"clientBodyBufferSize,omitempty" example:"16k"`
	// Buffering turns buffering of the upstream's answer on or off (proxy_buffering).
	Buffering string `json:"buffering,omitempty" enums:"on,off" example:"off"`
	// BufferSize is the buffer for the first part of the answer, its headers.
	BufferSize string `json:"bufferSize,omitempty" example:"8k"`
	// BuffersNumber is the number of BufferSize buffers for the answer's body (1-1024).
	BuffersNumber int `json:"buffersNumber,omitempty" minimum:"0" maximum:"1024" example:"4"`
	// RequestBuffering turns buffering of the request body on or off: off streams it to
	// the upstream as it arrives (and a request then cannot be retried on another peer).
	RequestBuffering string `json:"requestBuffering,omitempty" enums:"on,off" example:"on"`
	// MaxTempFileSize bounds the temporary file an answer is buffered to; "0" buffers in
	// memory only.
	MaxTempFileSize string `json:"maxTempFileSize,omitempty" example:"1024m"`
}

// RetryPolicy is when and how often a request that failed on one endpoint moves to
// another of the backend's endpoints (proxy_next_upstream). It overrides the backend's
// retries for this location.
type RetryPolicy struct {
	// NextUpstream are the conditions that move a request on: error, timeout,
	// invalid_header, http_500, http_502, http_503, http_504, http_403, http_404,
	// http_429 and non_idempotent, or "off" alone. "error timeout" if empty.
	NextUpstream []string `json:"nextUpstream,omitempty" example:"error,timeout,http_503"`
	// Tries is the number of endpoints a request may try, the first included (1 means no
	// retry); 0 keeps the backend's retries.
	Tries int `json:"tries,omitempty" minimum:"0" maximum:"11" example:"3"`
	// Timeout bounds the time spent moving on; empty or "0s" means no bound.
	Timeout string `json:"timeout,omitempty" example:"10s"`
	// SamePeer lets a retry go to an endpoint already tried once every endpoint was: Tries
	// then bounds the retries whatever the number of endpoints, and a backend of one
	// endpoint retries too (Gateway API's retry attempts). Without it, as in
	// ingress-nginx, a request tries each endpoint at most once.
	SamePeer bool `json:"samePeer,omitempty" example:"true"`
}

// ErrorsPolicy sends the answers with Codes to another backend, as ingress-nginx's
// custom-http-errors with default-backend do: the upstream's answer (or nginx's own, such
// as a 502) is replaced by what Backend answers, which is told the code in X-Code, the
// client's Accept in X-Format, the original URI in X-Original-URI and the request id in
// X-Request-ID.
type ErrorsPolicy struct {
	// Codes are the HTTP statuses intercepted, 400-599.
	Codes []int `json:"codes" example:"404,503"`
	// Backend names the backend that answers them.
	Backend string `json:"backend" example:"error-pages"`
	// Origin, when set, is passed as X-Namespace, X-Ingress-Name, X-Service-Name and
	// X-Service-Port; the reconciler sets it from the Ingress.
	Origin *ErrorsOrigin `json:"origin,omitempty"`
}

// ErrorsOrigin is where a location came from, for the error backend's headers.
type ErrorsOrigin struct {
	Namespace   string `json:"namespace,omitempty" example:"shop"`
	Ingress     string `json:"ingress,omitempty" example:"shop"`
	Service     string `json:"service,omitempty" example:"shop-api"`
	ServicePort string `json:"servicePort,omitempty" example:"80"`
}

// Limits on retries and intercepted codes.
const (
	MaxRetryTries  = 11
	MaxErrorCodes  = 20
	MaxBuffersNumb = 1024
)

// NextUpstreamConditions are the conditions RetryPolicy.NextUpstream takes.
var NextUpstreamConditions = []string{"error", "timeout", "invalid_header", "http_500", "http_502",
	"http_503", "http_504", "http_403", "http_404", "http_429", "non_idempotent", "off"}

// bodySizeRe is nginx's size grammar (k, m or g, either case), bounded so that no value
// overflows nginx's off_t parse.
var bodySizeRe = regexp.MustCompile(`^[0-9]{1,7}[kKmMgG]?$`)

// ValidBodySize checks a size in nginx's notation for a body or buffer: a number,
// optionally followed by k, m or g.
func ValidBodySize(field, s string) error {
	if !bodySizeRe.MatchString(s) {
		return Invalid(field, "size must be a number of at most 7 digits optionally followed by k, m or g, like 10m (0 where it means no limit)")
	}
	return nil
}

// validateProxy checks the location's proxy, retry and errors policies.
func (l *Location) validateProxy() error {
	if err := l.Proxy.validate(); err != nil {
		return prefixed("proxy", err)
	}
	if err := l.Retry.validate(); err != nil {
		return prefixed("retry", err)
	}
	return prefixed("errors", l.Errors.validate())
}

func (p *ProxyPolicy) validate() error {
	if p == nil {
		return nil
	}
	for _, f := range []struct{ name, v string }{{"bodySize", p.BodySize},
		{"clientBodyBufferSize", p.ClientBodyBufferSize}, {"bufferSize", p.BufferSize},
		{"maxTempFileSize", p.MaxTempFileSize}} {
		if f.v != "" {
			if err := ValidBodySize(f.name, f.v); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct{ name, v string }{{"buffering", p.Buffering}, {"requestBuffering", p.RequestBuffering}} {
		if f.v != "" && f.v != "on" && f.v != "off" {
			return Invalid(f.name, "must be on or off")
		}
	}
	if p.BuffersNumber < 0 || p.BuffersNumber > MaxBuffersNumb {
		return Invalid("buffersNumber", "must be 0-%d", MaxBuffersNumb)
	}
	if p.BuffersNumber > 0 && p.BufferSize == "" {
		return Invalid("buffersNumber", "buffersNumber needs bufferSize, the size of each buffer")
	}
	// nginx -t holds the buffers to sizes that fit each other; the renderer writes
	// proxy_buffers <n> <bufferSize> and proxy_busy_buffers_size <bufferSize>, so busy
	// buffers (one buffer) stay below all buffers but one only from 3 buffers on.
	if p.BuffersNumber > 0 && p.BuffersNumber < 3 {
		return Invalid("buffersNumber", "must be at least 3: nginx keeps one buffer busy while it fills the others")
	}
	buf := int64(8 << 10) // nginx's default on most platforms
	if p.BufferSize != "" {
		if buf = sizeBytes(p.BufferSize); buf == 0 {
			return Invalid("bufferSize", "bufferSize may not be 0")
		}
	}
	if p.MaxTempFileSize != "" {
		if n := sizeBytes(p.MaxTempFileSize); n != 0 && n < 2*buf {
			return Invalid("maxTempFileSize", "must be 0 (no temporary file) or at least twice bufferSize, which nginx writes at once")
		}
	}
	return nil
}

// sizeBytes reads a size that ValidBodySize admitted.
func sizeBytes(s string) int64 {
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	case 'g', 'G':
		mult = 1 << 30
	}
	n, _ := strconv.ParseInt(strings.TrimRight(s, "kKmMgG"), 10, 64)
	return n * mult
}

func (r *RetryPolicy) validate() error {
	if r == nil {
		return nil
	}
	seen := map[string]bool{}
	for i, c := range r.NextUpstream {
		f := fmt.Sprintf("nextUpstream[%d]", i)
		if !slices.Contains(NextUpstreamConditions, c) {
			return Invalid(f, "%q is not one of %s", printable(c), strings.Join(NextUpstreamConditions, ", "))
		}
		if seen[c] {
			return Invalid(f, "%q is listed twice", c)
		}
		seen[c] = true
	}
	if seen["off"] && len(r.NextUpstream) > 1 {
		return Invalid("nextUpstream", "off goes alone")
	}
	if r.Tries < 0 || r.Tries > MaxRetryTries {
		return Invalid("tries", "must be 0-%d", MaxRetryTries)
	}
	// Without a number of tries of its own, samePeer would retry up to the backend's
	// retries, which count other peers.
	if r.SamePeer && r.Tries < 2 {
		return Invalid("samePeer", "samePeer needs tries of 2 or more, which then bound the retries")
	}
	if r.Timeout != "" {
		if err := ValidDuration("timeout", r.Timeout); err != nil {
			return err
		}
	}
	return nil
}

func (e *ErrorsPolicy) validate() error {
	if e == nil {
		return nil
	}
	if len(e.Codes) == 0 || len(e.Codes) > MaxErrorCodes {
		return Invalid("codes", "errors needs 1-%d codes", MaxErrorCodes)
	}
	seen := map[int]bool{}
	for i, c := range e.Codes {
		if c < 400 || c > 599 {
			return Invalid(fmt.Sprintf("codes[%d]", i), "code must be 400-599, got %d", c)
		}
		if seen[c] {
			return Invalid(fmt.Sprintf("codes[%d]", i), "code %d is listed twice", c)
		}
		seen[c] = true
	}
	if err := ValidName("backend", e.Backend); err != nil {
		return err
	}
	if o := e.Origin; o != nil {
		for _, f := range []struct{ name, v string }{{"origin.namespace", o.Namespace}, {"origin.ingress", o.Ingress},
			{"origin.service", o.Service}, {"origin.servicePort", o.ServicePort}} {
			if f.v != "" && ValidName(f.name, f.v) != nil {
				return Invalid(f.name, "must be a Kubernetes object name or port: lowercase letters, digits, '.', '_' or '-'")
			}
		}
	}
	return nil
}

// checkErrorsRefs verifies that the backends a server's error policies name exist.
func (s *State) checkErrorsRefs(srv *Server) error {
	for i, l := range srv.Locations {
		if l.Errors != nil && s.Backends[l.Errors.Backend] == nil {
			return Invalid(fmt.Sprintf("locations[%d].errors.backend", i), "backend %q does not exist", l.Errors.Backend)
		}
	}
	return nil
}
