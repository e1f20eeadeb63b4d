package reconciler

import (
	"fmt"
	"strconv"
	"time"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// ruleTimeouts translates a rule's timeouts into the proxy's: the shorter of request and
// backendRequest bounds each read from and send to the backend. nginx has no bound on a
// whole request, so a request timeout is kept per read and write, which answers 504 for
// a backend that takes longer than it to answer, as the spec's examples ask. Zero (no
// timeout) leaves nginx's.
func ruleTimeouts(t *gatewayv1.HTTPRouteTimeouts) (*api.Timeouts, error) {
	if t == nil {
		return nil, nil
	}
	var bound time.Duration
	for _, d := range []*gatewayv1.Duration{t.Request, t.BackendRequest} {
		if d == nil {
			continue
		}
		v, err := time.ParseDuration(string(*d))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("timeout %q is not a duration", *d)
		}
		if v > 0 && (bound == 0 || v < bound) {
			bound = v
		}
	}
	if bound == 0 {
		return nil, nil
	}
	s := nginxDuration(bound)
	return &api.Timeouts{Read: s, Send: s}, nil
}

// nginxDuration spells d in nginx's notation: milliseconds, or seconds past what the
// grammar's six digits of milliseconds hold.
func nginxDuration(d time.Duration) string {
	if ms := d.Milliseconds(); ms <= 999999 {
		return strconv.FormatInt(max(ms, 1), 10) + "ms"
	}
	return strconv.FormatInt(min(int64(d/time.Second), 999999), 10) + "s"
}
