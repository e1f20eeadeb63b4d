package reconciler

import (
	"fmt"
	"strconv"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// retryCodes are the answers nginx can retry on (proxy_next_upstream's http_*); Gateway
// API asks for 500, 502, 503 and 504, and lets an implementation take others.
var retryCodes = map[gatewayv1.HTTPRouteRetryStatusCode]string{403: "http_403", 404: "http_404", 429: "http_429",
	500: "http_500", 502: "http_502", 503: "http_503", 504: "http_504"}

// retryCodeList says retryCodes in messages.
const retryCodeList = "403, 404, 429, 500, 502, 503 and 504"

// defaultRetryAttempts is how many times a request is retried when a rule's retry says
// no attempts, which the spec leaves to the implementation: once, as Envoy does.
const defaultRetryAttempts = 1

// ruleRetry translates a rule's retry into a location's retry policy, or says why nginx
// cannot serve it: a rule is dropped rather than served with less than it asks.
//
//   - Codes become nginx's conditions, with error and timeout: the spec says to retry on
//     connection errors (disconnect, reset, timeout, TCP failure) whenever a retry is
//     configured, and timeout also retries an attempt past the backendRequest timeout.
//   - Attempts count retries, the first try apart, whatever the number of endpoints, so a
//     retry may go to an endpoint already tried (samePeer): a Service of one endpoint
//     retries too.
//   - non_idempotent: the spec retries "a backend request" on the codes it names, with no
//     exception for a method, and a rule's owner asks for it knowing the application; so
//     a POST is retried as a GET is (nginx's default would not, silently).
//   - A request timeout bounds the retrying (proxy_next_upstream_timeout): no retry
//     starts once it passed.
//   - Backoff: nginx retries at once and cannot wait between attempts; only a zero
//     backoff is served.
func ruleRetry(r *gatewayv1.HTTPRouteRetry, t *gatewayv1.HTTPRouteTimeouts) (*api.RetryPolicy, error) {
	if r == nil {
		return nil, nil
	}
	p := &api.RetryPolicy{NextUpstream: []string{"error", "timeout"}, SamePeer: true}
	for _, c := range r.Codes {
		cond, ok := retryCodes[c]
		if !ok {
			return nil, fmt.Errorf("retry.codes: %d cannot be retried: nginx retries on %s only", c, retryCodeList)
		}
		p.NextUpstream = append(p.NextUpstream, cond)
	}
	p.NextUpstream = append(p.NextUpstream, "non_idempotent")
	attempts := defaultRetryAttempts
	if r.Attempts != nil {
		attempts = *r.Attempts
	}
	if attempts < 1 || attempts >= api.MaxRetryTries {
		return nil, fmt.Errorf("retry.attempts %d: restyplane retries a request 1 to %d times", attempts, api.MaxRetryTries-1)
	}
	p.Tries = attempts + 1
	if b := r.Backoff; b != nil {
		d, err := time.ParseDuration(string(*b))
		if err != nil {
			return nil, fmt.Errorf("retry.backoff %q is not a duration", *b)
		}
		if d > 0 {
			return nil, fmt.Errorf("retry.backoff %s is not served: nginx retries at once and cannot wait between attempts; remove backoff or set it to 0s", *b)
		}
	}
	if t != nil && t.Request != nil {
		d, err := time.ParseDuration(string(*t.Request))
		if err == nil && d > 0 {
			p.Timeout = nginxDuration(d)
		}
	}
	return p, nil
}

// ruleRef names rule i of a route in messages: rules[i], and its name when it has one.
func ruleRef(i int, name *gatewayv1.SectionName) string {
	ref := "rules[" + strconv.Itoa(i) + "]"
	if name != nil && *name != "" {
		ref += " " + strconv.Quote(string(*name))
	}
	return ref
}
