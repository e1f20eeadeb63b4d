package reconciler

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// gatewayKinds says which of Gateway API's kinds the cluster serves. Gateway API is a set
// of CRDs a cluster may not have: without GatewayClass, Gateway and HTTPRoute the
// reconciler serves Ingresses alone; GRPCRoute, ReferenceGrant and BackendTLSPolicy are
// optional.
type gatewayKinds struct {
	core       bool
	grpcRoutes bool
	grants     bool
	// backendTLS is BackendTLSPolicy, of the standard channel since v1.4.
	backendTLS bool
	// retry is whether HTTPRoute keeps rules[].retry (readRetrySchema); retryErr why
	// that could not be told, when it could not: retries are then not claimed until the
	// schema poll (serveGateway) tells, and the rest is served.
	retry    retrySchema
	retryErr error
}

// discoverGateway asks the API server which Gateway API kinds it serves.
func discoverGateway(client *clients) (gatewayKinds, error) {
	var k gatewayKinds
	v1, err := servedResources(client, gatewayv1.GroupVersion.String())
	if err != nil {
		return k, err
	}
	k.core = slices.Contains(v1, "gatewayclasses") && slices.Contains(v1, "gateways") && slices.Contains(v1, "httproutes")
	k.grpcRoutes = slices.Contains(v1, "grpcroutes")
	k.backendTLS = slices.Contains(v1, "backendtlspolicies")
	if k.core {
		k.retry, k.retryErr = readRetrySchema(client, retrySchema{})
	}
	beta, err := servedResources(client, gatewayv1beta1.GroupVersion.String())
	if err != nil {
		return k, err
	}
	k.grants = slices.Contains(beta, "referencegrants")
	return k, nil
}

// servedResources lists the resources of one group version, none when it is not served.
func servedResources(client *clients, groupVersion string) ([]string, error) {
	list, err := client.gateway.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discover %s: %w", groupVersion, err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name)
	}
	return names, nil
}
