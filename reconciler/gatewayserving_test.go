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

// TestServingLeftOut: a Gateway's servers and certificates that the served revision left
// out make it Invalid, naming a few of them with who left them out and why, those left
// out for one reason together; its backends do not.
func TestServingLeftOut(t *testing.T) {
	srv := func(n string) api.Ref { return api.Ref{Kind: api.KindServer, Name: n} }
	cert := api.Ref{Kind: api.KindCertificate, Name: "c"}
	backend := api.Ref{Kind: api.KindBackend, Name: "b"}
	s := Serving{Revision: 9, Skipped: map[api.Ref]string{srv("a"): "edge-1: [emerg] a", srv("b"): "edge-1: [emerg] b",
		srv("c"): "edge-1: [emerg] c", srv("d"): "edge-1: [emerg] d and e", srv("e"): "edge-1: [emerg] d and e", cert: "edge-2: dict full", backend: "edge-1: does not resolve"}}
	for _, tc := range []struct {
		name    string
		objects []api.Ref
		served  bool
		says    string
	}{
		{"none of its own", []api.Ref{srv("x")}, true, ""},
		{"a backend", []api.Ref{backend, srv("x")}, true, ""},
		{"a server", []api.Ref{backend, srv("a")}, false, "the proxy serves revision 9 without server a (left out by edge-1: [emerg] a)"},
		{"a certificate", []api.Ref{cert}, false, "without certificate c (left out by edge-2: dict full)"},
		{"many", []api.Ref{cert, srv("a"), srv("b"), srv("c")}, false, "server b (left out by edge-1: [emerg] b); and 1 more"},
		{"for one reason", []api.Ref{srv("d"), srv("e")}, false, "without server d, server e (left out by edge-1: [emerg] d and e)"},
	} {
		got := s.leftOut(tc.objects)
		if got.served != tc.served || (!tc.served && got.reason != gatewayv1.GatewayReasonInvalid) || !strings.Contains(got.msg, tc.says) {
			t.Errorf("%s: leftOut = %+v, want served %v, a message with %q", tc.name, got, tc.served, tc.says)
		}
	}
}
