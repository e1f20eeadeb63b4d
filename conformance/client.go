package conformance

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gatewayv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	gatewayxv1alpha1 "sigs.k8s.io/gateway-api/apisx/v1alpha1"
)

// SuiteClient returns a controller-runtime client of the cluster, and its options, that
// know Kubernetes' types, Gateway API's and the CRDs', as the suite's own options make
// them (in a scheme of its own rather than client-go's global one).
func (c *Cluster) SuiteClient() (client.Client, client.Options, error) {
	s := runtime.NewScheme()
	for _, install := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		gatewayv1.Install, gatewayv1beta1.Install, gatewayv1alpha2.Install, gatewayv1alpha3.Install, gatewayxv1alpha1.Install} {
		if err := install(s); err != nil {
			return nil, client.Options{}, fmt.Errorf("client scheme: %w", err)
		}
	}
	opts := client.Options{Scheme: s}
	cl, err := client.New(c.Config, opts)
	if err != nil {
		return nil, client.Options{}, fmt.Errorf("client: %w", err)
	}
	return cl, opts, nil
}
