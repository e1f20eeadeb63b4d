package reconciler

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"
)

// DefaultGatewayController is the GatewayClass controllerName restyplane answers to.
const DefaultGatewayController = "restyplane.io/gateway-controller"

// gatewayAPIVersion is the Gateway API release restyplane is built against; a class says
// it supports that version (its SupportedVersion condition).
const gatewayAPIVersion = "v1.6.3"

// supportedFeatures are the Gateway API features restyplane serves, as a GatewayClass's
// status.supportedFeatures lists them (sorted, as the spec asks). GRPCRoute is listed
// only where the cluster serves it, and the addresses Gateways ask for only with a pool
// to give them from (pooledFeatures).
var supportedFeatures = []features.FeatureName{
	features.SupportGateway, features.SupportGatewayHTTPListenerIsolation, features.SupportGatewayPort8080, features.SupportHTTPRoute,
	features.SupportHTTPRoute303RedirectStatusCode, features.SupportHTTPRouteBackendProtocolWebSocket, features.SupportHTTPRoute307RedirectStatusCode,
	features.SupportHTTPRoute308RedirectStatusCode, features.SupportHTTPRouteBackendTimeout,
	features.SupportHTTPRouteCORS, features.SupportHTTPRouteHostRewrite, features.SupportHTTPRouteMethodMatching,
	features.SupportHTTPRouteParentRefPort, features.SupportHTTPRoutePathRedirect,
	features.SupportHTTPRoutePathRewrite, features.SupportHTTPRoutePortRedirect,
	features.SupportHTTPRouteQueryParamMatching, features.SupportHTTPRouteRequestMirror,
	features.SupportHTTPRouteRequestMultipleMirrors, features.SupportHTTPRouteRequestPercentageMirror,
	features.SupportHTTPRouteRequestTimeout, features.SupportHTTPRouteResponseHeaderModification,
	features.SupportHTTPRouteSchemeRedirect, features.SupportReferenceGrant, features.SupportHTTPRouteNamedRouteRule,
}

// retryFeatures are served where the cluster's HTTPRoute keeps rules[].retry (Gateway
// API's experimental channel): a retry retries on the codes nginx can retry on, and on
// connection errors and timeouts, as the spec asks of a retry stanza.
var retryFeatures = []features.FeatureName{features.SupportHTTPRouteRetry,
	features.SupportHTTPRouteRetryBackendTimeout, features.SupportHTTPRouteRetryConnectionError}

// pooledFeatures are served with --gateway-addresses: a Gateway's spec.addresses asks
// for an address of the pool, or for any.
var pooledFeatures = []features.FeatureName{features.SupportGatewayStaticAddresses, features.SupportGatewayAddressEmpty}

// classFeatures lists the supported features for a class's status, sorted by name:
// GRPCRoute (and its named rules), BackendTLSPolicy and retries where the cluster serves
// them, the addresses Gateways ask for where a pool gives them.
func classFeatures(gs *GatewaySnapshot) []gatewayv1.SupportedFeature {
	names := slices.Clone(supportedFeatures)
	if gs.GRPCServed {
		names = append(names, features.SupportGRPCRoute, features.SupportGRPCRouteNamedRouteRule)
	}
	if gs.RetryServed {
		names = append(names, retryFeatures...)
	}
	if gs.TLSPolicyServed {
		names = append(names, features.SupportBackendTLSPolicy)
	}
	if gs.Pool != nil {
		names = append(names, pooledFeatures...)
	}
	slices.Sort(names)
	out := make([]gatewayv1.SupportedFeature, len(names))
	for i, n := range names {
		out[i] = gatewayv1.SupportedFeature{Name: gatewayv1.FeatureName(n)}
	}
	return out
}

// classState is what a sync says of one GatewayClass of restyplane's controller.
type classState struct {
	obj *gatewayv1.GatewayClass
	// refusal says why the class is not accepted, "" when it is.
	refusal string
}

// planClass accepts a class unless it asks for parameters, which restyplane takes none of:
// serving its Gateways as if they were not there would ignore what their owner asked.
func planClass(gc *gatewayv1.GatewayClass) *classState {
	c := &classState{obj: gc}
	if p := gc.Spec.ParametersRef; p != nil {
		c.refusal = fmt.Sprintf("parametersRef %s %s names parameters, and restyplane's GatewayClasses take none", p.Kind, p.Name)
	}
	return c
}

// conditions are the class's status conditions.
func (c *classState) conditions() []metav1.Condition {
	gen := c.obj.Generation
	accepted := condition(gatewayv1.GatewayClassConditionStatusAccepted, true, gatewayv1.GatewayClassReasonAccepted,
		"restyplane serves this class's Gateways", gen)
	if c.refusal != "" {
		accepted = condition(gatewayv1.GatewayClassConditionStatusAccepted, false, gatewayv1.GatewayClassReasonInvalidParameters, c.refusal, gen)
	}
	return []metav1.Condition{accepted, condition(gatewayv1.GatewayClassConditionStatusSupportedVersion, true,
		gatewayv1.GatewayClassReasonSupportedVersion, "restyplane is built against Gateway API "+gatewayAPIVersion, gen)}
}

// condition builds a status condition of an object at generation gen. Its transition time
// is set when it is written, and kept while its status does not change.
func condition[T, R ~string](typ T, ok bool, reason R, msg string, gen int64) metav1.Condition {
	st := metav1.ConditionFalse
	if ok {
		st = metav1.ConditionTrue
	}
	return metav1.Condition{Type: string(typ), Status: st, Reason: string(reason), Message: truncateCondition(msg), ObservedGeneration: gen}
}

// truncateCondition bounds a condition's message to the 32768 bytes the API allows.
func truncateCondition(msg string) string {
	if len(msg) > 4096 {
		return msg[:4093] + "..."
	}
	return msg
}
