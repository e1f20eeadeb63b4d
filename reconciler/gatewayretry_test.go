package reconciler

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// retryRule is a rule for prefix to Service web with a retry of codes and attempts
// (nil: unspecified) and a backoff ("" for none), named name ("" for none).
func retryRule(name, prefix string, codes []int, attempts *int, backoff string) gatewayv1.HTTPRouteRule {
	r := kubetest.Rule(prefix, []string{"web"})
	if name != "" {
		n := gatewayv1.SectionName(name)
		r.Name = &n
	}
	r.Retry = &gatewayv1.HTTPRouteRetry{Attempts: attempts}
	for _, c := range codes {
		r.Retry.Codes = append(r.Retry.Codes, gatewayv1.HTTPRouteRetryStatusCode(c))
	}
	if backoff != "" {
		d := gatewayv1.Duration(backoff)
		r.Retry.Backoff = &d
	}
	return r
}

// TestGatewayRetryTranslated: a rule's retry becomes its locations' retry policy: the
// codes as nginx's conditions, with connection errors and timeouts, for every method (the
// spec makes no exception for POST), attempts as retries beyond the first try that may
// go to the same endpoint again, and a request timeout as the bound on retrying. A code
// nginx cannot retry on, a backoff it cannot wait, or more attempts than it allows drop
// that rule alone, named by its name in the route's PartiallyInvalid condition, which
// starts with "Dropped Rule" as the spec asks.
func TestGatewayRetryTranslated(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1")...)
	three, two, eleven := 3, 2, 11
	timed := retryRule("", "/timed", []int{503}, &two, "0s")
	req := gatewayv1.Duration("2s")
	timed.Timeouts = &gatewayv1.HTTPRouteTimeouts{Request: &req}
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", "retries", "", []string{"r.example.com"},
		retryRule("", "/code-500-attempts-3", []int{500}, &three, ""),
		retryRule("all-codes", "/code-all-attempts-2", []int{500, 502, 503, 504}, &two, ""),
		retryRule("", "/default", nil, nil, ""),
		timed,
		retryRule("teapot", "/501", []int{500, 501}, &two, ""),
		retryRule("patient", "/backoff", []int{500}, &two, "100ms"),
		retryRule("", "/many", []int{500}, &eleven, "")), ""), 1))
	tr := translateGateway(t, objs...)
	got := map[string]*api.RetryPolicy{}
	for _, l := range tr.Servers["k8s.r.example.com"].Locations {
		got[l.Path] = l.Retry
	}
	conds := func(codes ...string) []string {
		return append([]string{"error", "timeout"}, append(codes, "non_idempotent")...)
	}
	want := map[string]*api.RetryPolicy{
		"/code-500-attempts-3": {NextUpstream: conds("http_500"), Tries: 4, SamePeer: true},
		"/code-all-attempts-2": {NextUpstream: conds("http_500", "http_502", "http_503", "http_504"), Tries: 3, SamePeer: true},
		"/default":             {NextUpstream: conds(), Tries: 2, SamePeer: true},
		"/timed":               {NextUpstream: conds("http_503"), Tries: 3, SamePeer: true, Timeout: "2000ms"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("locations' retry (-want +got):\n%s", d)
	}
	r := tr.Gateway.Routes["HTTPRoute app/retries"]
	if got, want := conditionsOf(r), "Accepted=True/Accepted PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"; got != want {
		t.Fatalf("conditions = %s, want %s", got, want)
	}
	var msg string
	for _, c := range r.Parents[0].Conditions {
		if c.Type == string(gatewayv1.RouteConditionPartiallyInvalid) {
			msg = c.Message
		}
	}
	for _, part := range []string{`Dropped Rule rules[4] "teapot": retry.codes: 501`, "nginx retries on 403, 404, 429, 500, 502, 503 and 504 only",
		`Dropped Rule rules[5] "patient": retry.backoff 100ms`, "Dropped Rule rules[6]: retry.attempts 11"} {
		if !strings.Contains(msg, part) {
			t.Errorf("PartiallyInvalid message %q does not say %q", msg, part)
		}
	}
	if !strings.HasPrefix(msg, "Dropped Rule") {
		t.Errorf("PartiallyInvalid message %q does not start with Dropped Rule", msg)
	}
	if !hasProblem(r.Problems, ReasonSkipped, `rules[4] "teapot"`) {
		t.Errorf("problems %v, want the dropped rule named in a Warning", r.Problems)
	}
	for _, n := range r.Notes {
		if strings.Contains(n.Message, "retry") {
			t.Errorf("note %q: a served retry is not reported as ignored", n.Message)
		}
	}
}

// TestGatewayNamedRules: named rules are served like any other, and a message about a
// rule names it: a rule whose one backendRef is of a kind restyplane does not route to,
// dropped whole, says its name.
func TestGatewayNamedRules(t *testing.T) {
	objs := append(gatewayBase(), serviceWith("app", "web", "10.0.0.1")...)
	named := retryRule("named-rule", "/named", []int{500}, nil, "")
	named.Retry = nil
	bad := kubetest.Rule("/bad", []string{"web"})
	n := gatewayv1.SectionName("bad-filter")
	bad.Name = &n
	bad.Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterExtensionRef,
		ExtensionRef: &gatewayv1.LocalObjectReference{Group: "example.com", Kind: "Thing", Name: "x"}}}
	objs = append(objs, routeAged(parentOn(kubetest.HTTPRoute("app", "named", "", []string{"n.example.com"},
		named, kubetest.Rule("/unnamed", []string{"web"}), bad), ""), 1))
	tr := translateGateway(t, objs...)
	if got, want := locationsOf(tr.Servers["k8s.n.example.com"]), []string{"prefix /named -> k8s.app.web.80", "prefix /unnamed -> k8s.app.web.80"}; !slices.Equal(got, want) {
		t.Errorf("locations = %v, want %v", got, want)
	}
	r := tr.Gateway.Routes["HTTPRoute app/named"]
	if !hasProblem(r.Problems, ReasonSkipped, `rules[2] "bad-filter" is not applied`) {
		t.Errorf("problems %v, want the dropped rule named", r.Problems)
	}
}

// TestGatewayClassClaims: the class claims named rules (GRPCRoute's where it is served),
// and retries only where the cluster's HTTPRoute keeps rules[].retry (Gateway API's
// experimental channel): elsewhere no route can carry one.
func TestGatewayClassClaims(t *testing.T) {
	names := func(gs *GatewaySnapshot) []string {
		var out []string
		for _, f := range classFeatures(gs) {
			out = append(out, string(f.Name))
		}
		return out
	}
	retry := []string{"HTTPRouteRetry", "HTTPRouteRetryBackendTimeout", "HTTPRouteRetryConnectionError"}
	std := names(&GatewaySnapshot{GRPCServed: true})
	exp := names(&GatewaySnapshot{GRPCServed: true, RetryServed: true})
	for _, n := range []string{"HTTPRouteNamedRouteRule", "GRPCRouteNamedRouteRule"} {
		if !slices.Contains(std, n) || !slices.Contains(exp, n) {
			t.Errorf("%s not claimed: %v", n, std)
		}
	}
	for _, n := range retry {
		if slices.Contains(std, n) || !slices.Contains(exp, n) {
			t.Errorf("%s: claimed %t without retry served, %t with it; want false, true", n, slices.Contains(std, n), slices.Contains(exp, n))
		}
	}
	if slices.Contains(names(&GatewaySnapshot{}), "GRPCRouteNamedRouteRule") {
		t.Errorf("GRPCRouteNamedRouteRule claimed where GRPCRoute is not served")
	}
	if !slices.IsSorted(exp) {
		t.Errorf("features not sorted: %v", exp)
	}
}
