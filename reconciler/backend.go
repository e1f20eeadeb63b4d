package reconciler

import (
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// portKey spells a Service port as an Ingress names it: its number or its name.
func portKey(p networkingv1.ServiceBackendPort) string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(int(p.Number))
}

// backendFor builds the backend of one Service port: the ready endpoints of the Service's
// EndpointSlices for that port, or the external name of an ExternalName Service. A missing
// Service gives a backend without endpoints (so requests get a 503 until it exists) and a
// warning; a port the Service does not have is an error.
func backendFor(namespace string, ref *networkingv1.IngressServiceBackend, snap *Snapshot) (b *api.Backend, warning string, err error) {
	key := namespace + "/" + ref.Name
	b = &api.Backend{
		Name:      backendName(namespace, ref.Name, portKey(ref.Port)),
		Endpoints: []api.Endpoint{},
		Source:    api.Source{Kind: api.SourceKubernetes, Namespace: namespace, Name: ref.Name},
	}
	svc := snap.Services[key]
	if svc == nil {
		return b, fmt.Sprintf("Service %s not found; its backend has no endpoints", key), nil
	}
	b.Source.UID = string(svc.UID)
	sp, ok := servicePort(svc, ref.Port)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		if !snap.AllowExternalName {
			return nil, "", fmt.Errorf("%w: Service %s is an ExternalName Service (%s), and restyplane routes to those only when started with --allow-external-name", errExternalName, key, svc.Spec.ExternalName)
		}
		if why := externalNameRefusal(svc.Spec.ExternalName); why != "" {
			return nil, "", fmt.Errorf("%w: ExternalName Service %s: %s", errExternalName, key, why)
		}
		port := int(ref.Port.Number)
		if ok {
			port = int(sp.Port)
		}
		if port == 0 {
			return nil, "", fmt.Errorf("ExternalName Service %s has no port %s", key, portKey(ref.Port))
		}
		b.Endpoints = append(b.Endpoints, api.Endpoint{Address: svc.Spec.ExternalName, Port: port, Weight: 1})
		return b, "", nil
	}
	if !ok {
		return nil, "", fmt.Errorf("Service %s has no port %s", key, portKey(ref.Port))
	}
	b.Endpoints = readyEndpoints(snap.Slices[key], sp.Name)
	if len(b.Endpoints) > api.MaxEndpoints {
		return nil, "", fmt.Errorf("Service %s has %d ready endpoints, more than the %d a backend holds", key, len(b.Endpoints), api.MaxEndpoints)
	}
	return b, "", nil
}

// servicePort finds the Service port an Ingress backend names.
func servicePort(svc *corev1.Service, p networkingv1.ServiceBackendPort) (corev1.ServicePort, bool) {
	for _, sp := range svc.Spec.Ports {
		if (p.Name != "" && sp.Name == p.Name) || (p.Name == "" && sp.Port == p.Number) {
			return sp, true
		}
	}
	return corev1.ServicePort{}, false
}

// readyEndpoints lists, sorted and once each, the ready TCP endpoints of the slices' port
// with the given name (EndpointSlice ports carry their Service port's name). An endpoint
// without a ready condition counts as ready, as the EndpointSlice API says.
func readyEndpoints(slices []*discoveryv1.EndpointSlice, portName string) []api.Endpoint {
	seen := map[api.Endpoint]bool{}
	out := []api.Endpoint{}
	for _, s := range slices {
		port := 0
		for _, p := range s.Ports {
			if deref(p.Name) == portName && p.Port != nil && (p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP) {
				port = int(*p.Port)
			}
		}
		if port == 0 {
			continue
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 || (e.Conditions.Ready != nil && !*e.Conditions.Ready) {
				continue
			}
			// Addresses are fungible; consumers may use the first, as kube-proxy does.
			ep := api.Endpoint{Address: e.Addresses[0], Port: port, Weight: 1}
			if !seen[ep] {
				seen[ep] = true
				out = append(out, ep)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Address != out[j].Address {
			return out[i].Address < out[j].Address
		}
		return out[i].Port < out[j].Port
	})
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
