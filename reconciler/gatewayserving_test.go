package reconciler

import (
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// TestServingOf: what became of the revision a Gateway waits for, by what the proxy
// serves and the last apply that failed.
func TestServingOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      Serving
		rev    int64
		served bool
		reason gatewayv1.GatewayConditionReason
		says   string
	}{
		{"no store says", Serving{Revision: -1}, 7, true, "", ""},
		{"served", Serving{Revision: 7}, 7, true, "", ""},
		{"a later one served", Serving{Revision: 9, Failed: 8, Outcome: api.OutcomeRejected}, 7, true, "", ""},
		{"on its way", Serving{Revision: 6}, 7, false, gatewayv1.GatewayReasonPending, "waiting for the proxy to serve revision 7"},
		{"an older one failed", Serving{Revision: 5, Failed: 6, Outcome: api.OutcomeRejected}, 7, false, gatewayv1.GatewayReasonPending, "waiting for"},
		{"rejected", Serving{Revision: 6, Failed: 7, Outcome: api.OutcomeRejected, Error: "[emerg] bad"}, 7, false, gatewayv1.GatewayReasonInvalid, "revision 7 holds what the Gateway serves since revision 7, and nginx refused it; the proxy serves revision 6: [emerg] bad"},
		{"a later one rejected", Serving{Revision: 6, Failed: 8, Outcome: api.OutcomeRejected, Error: "x"}, 7, false, gatewayv1.GatewayReasonInvalid, "revision 8 holds what the Gateway serves since revision 7"},
		{"rolled back", Serving{Revision: 6, Failed: 7, Outcome: api.OutcomeRolledBack, Error: "5xx"}, 7, false, gatewayv1.GatewayReasonInvalid, "rolled back"},
		{"failed, tried again", Serving{Revision: 6, Failed: 7, Outcome: api.OutcomeFailed, Error: "dial"}, 7, false, gatewayv1.GatewayReasonPending, "tried again"},
	} {
		got := tc.s.of(tc.rev)
		if got.served != tc.served || got.reason != tc.reason || !strings.Contains(got.msg, tc.says) {
			t.Errorf("%s: of(%d) = %+v, want served %v, reason %q, a message with %q", tc.name, tc.rev, got, tc.served, tc.reason, tc.says)
		}
	}
}
