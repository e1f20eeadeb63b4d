package reconciler

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewaySecretKeys lists the Secrets ("namespace/name") a Gateway's listeners name as
// certificates, whatever their namespace: a cross-namespace one is read to say whether a
// ReferenceGrant lets it be used, never used without one.
func gatewaySecretKeys(gw *gatewayv1.Gateway) []string {
	var keys []string
	for _, l := range gw.Spec.Listeners {
		if l.TLS == nil {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if isSecretRef(ref.Group, ref.Kind) {
				keys = append(keys, refNamespace(ref.Namespace, gw.Namespace)+"/"+string(ref.Name))
			}
		}
	}
	return keys
}

// isSecretRef reports whether a reference's group and kind name a core Secret.
func isSecretRef(group *gatewayv1.Group, kind *gatewayv1.Kind) bool {
	return (group == nil || *group == "" || *group == "core") && (kind == nil || *kind == "Secret")
}

// isServiceRef reports whether a backend reference's group and kind name a core Service.
func isServiceRef(ref gatewayv1.BackendObjectReference) bool {
	return (ref.Group == nil || *ref.Group == "" || *ref.Group == "core") && (ref.Kind == nil || *ref.Kind == "Service")
}

// httpRouteServiceKeys lists the Services an HTTPRoute's backends and mirrors name.
func httpRouteServiceKeys(r *gatewayv1.HTTPRoute) []string {
	var keys []string
	add := func(ref gatewayv1.BackendObjectReference) {
		if isServiceRef(ref) {
			keys = append(keys, refNamespace(ref.Namespace, r.Namespace)+"/"+string(ref.Name))
		}
	}
	filters := func(fs []gatewayv1.HTTPRouteFilter) {
		for _, f := range fs {
			if f.RequestMirror != nil {
				add(f.RequestMirror.BackendRef)
			}
		}
	}
	for _, rule := range r.Spec.Rules {
		filters(rule.Filters)
		for _, b := range rule.BackendRefs {
			add(b.BackendObjectReference)
			filters(b.Filters)
		}
	}
	return keys
}

// grpcRouteServiceKeys lists the Services a GRPCRoute's backends and mirrors name.
func grpcRouteServiceKeys(r *gatewayv1.GRPCRoute) []string {
	var keys []string
	add := func(ref gatewayv1.BackendObjectReference) {
		if isServiceRef(ref) {
			keys = append(keys, refNamespace(ref.Namespace, r.Namespace)+"/"+string(ref.Name))
		}
	}
	for _, rule := range r.Spec.Rules {
		for _, f := range rule.Filters {
			if f.RequestMirror != nil {
				add(f.RequestMirror.BackendRef)
			}
		}
		for _, b := range rule.BackendRefs {
			add(b.BackendObjectReference)
		}
	}
	return keys
}

// gatewaySecrets indexes a Gateway by its certificates' Secrets.
func gatewaySecrets(obj any) ([]string, error) {
	if gw, ok := obj.(*gatewayv1.Gateway); ok {
		return gatewaySecretKeys(gw), nil
	}
	return nil, nil
}

// routeServices indexes an HTTPRoute or GRPCRoute by the Services it routes to.
func routeServices(obj any) ([]string, error) {
	switch r := obj.(type) {
	case *gatewayv1.HTTPRoute:
		return httpRouteServiceKeys(r), nil
	case *gatewayv1.GRPCRoute:
		return grpcRouteServiceKeys(r), nil
	}
	return nil, nil
}

// policyConfigMaps indexes a BackendTLSPolicy by the ConfigMaps ("namespace/name", its own
// namespace) its caCertificateRefs name.
func policyConfigMaps(obj any) ([]string, error) {
	p, ok := obj.(*gatewayv1.BackendTLSPolicy)
	if !ok {
		return nil, nil
	}
	var keys []string
	for _, ref := range p.Spec.Validation.CACertificateRefs {
		if isConfigMapRef(ref) {
			keys = append(keys, p.Namespace+"/"+string(ref.Name))
		}
	}
	return keys, nil
}

// isConfigMapRef reports whether a reference names a core ConfigMap.
func isConfigMapRef(ref gatewayv1.LocalObjectReference) bool {
	return (ref.Group == "" || ref.Group == "core") && ref.Kind == "ConfigMap"
}
