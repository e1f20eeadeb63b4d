package reconciler

import (
	"errors"
	"fmt"
	"strconv"

	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// weightedRef is one backendRef of a rule with its weight (1 when it names none).
type weightedRef struct {
	ref    gatewayv1.BackendObjectReference
	weight int32
}

// serviceBackend resolves a backend reference of the route to the backend of a Service
// port, adding it to the route's backends; protocol is http or grpc. It returns "" when
// the reference is not resolved, and records why (ResolvedRefs): another kind than
// Service (InvalidKind), another namespace's Service without a ReferenceGrant
// (RefNotPermitted), a Service or port that does not exist (BackendNotFound). A Service
// port a BackendTLSPolicy covers gets a backend of its own that speaks TLS as the policy
// says; when the policy cannot be honoured it returns "" too, and the policy's status,
// not the route's ResolvedRefs, says why.
func (gp *gatewayPlan) serviceBackend(rp *routePlan, ref gatewayv1.BackendObjectReference, protocol string) string {
	ns := refNamespace(ref.Namespace, rp.meta.Namespace)
	key := ns + "/" + string(ref.Name)
	switch {
	case !isServiceRef(ref):
		g, k := "", "Service"
		if ref.Group != nil {
			g = string(*ref.Group)
		}
		if ref.Kind != nil {
			k = string(*ref.Kind)
		}
		rp.unresolved(gatewayv1.RouteReasonInvalidKind, "backendRef %s of kind %s (group %q) is not a Service; its share of requests answers 500", key, k, g)
		return ""
	case !permits(gp.snap.Grants, grantFrom{gatewayGroup, rp.kind, rp.meta.Namespace}, grantTo{"", "Service", ns, string(ref.Name)}):
		rp.unresolved(gatewayv1.RouteReasonRefNotPermitted, "backendRef %s is a Service of another namespace, and no ReferenceGrant in namespace %s lets %ss of namespace %s use it; its share of requests answers 500",
			key, ns, rp.kind, rp.meta.Namespace)
		return ""
	case ref.Port == nil:
		rp.unresolved(gatewayv1.RouteReasonBackendNotFound, "backendRef %s names no port; its share of requests answers 500", key)
		return ""
	case gp.whole.Services[key] == nil:
		rp.unresolved(gatewayv1.RouteReasonBackendNotFound, "Service %s not found; its share of requests answers 500", key)
		return ""
	}
	rp.services[key] = true
	port := strconv.Itoa(int(*ref.Port))
	suffix := ""
	if protocol == api.ProtocolGRPC {
		suffix = ".grpc"
	}
	pol := gp.policyFor(key, *ref.Port)
	if pol != nil {
		if pol.tls == nil {
			rp.warn(ReasonDegraded, "backendRef %s port %s: BackendTLSPolicy %s does not let the proxy verify it (%s); its share of requests answers 500",
				key, port, pol.obj.Name, pol.acceptMsg)
			return ""
		}
		// Its own name: an Ingress's backend of the same Service port speaks as the
		// Ingress asks.
		suffix += ".tls"
	}
	name := backendName(ns, string(ref.Name), port+suffix)
	if _, ok := rp.backends[name]; ok {
		return name
	}
	b, _, err := backendFor(ns, &networkingv1.IngressServiceBackend{Name: string(ref.Name),
		Port: networkingv1.ServiceBackendPort{Number: *ref.Port}}, gp.whole)
	if err != nil {
		reason := gatewayv1.RouteReasonBackendNotFound
		if isExternalNameRefusal(err) {
			reason = gatewayv1.RouteReasonRefNotPermitted
		}
		rp.unresolved(reason, "backendRef %s: %v; its share of requests answers 500", key, err)
		return ""
	}
	b.Name = name
	if protocol == api.ProtocolGRPC {
		b.Protocol = api.ProtocolGRPC
	}
	if pol != nil {
		b.Protocol, b.UpstreamTLS = api.ProtocolHTTPS, pol.tls
		if protocol == api.ProtocolGRPC {
			b.Protocol = api.ProtocolGRPCS
		}
		rp.cas[pol.ca.Name] = pol.ca
	}
	b.Normalize()
	if err := b.Validate(); err != nil {
		rp.unresolved(gatewayv1.RouteReasonBackendNotFound, "backend %s: %v", name, err)
		return ""
	}
	rp.backends[name] = b
	return name
}

// ruleBackend returns the backend a rule's requests go to. A rule of one backendRef goes
// straight to its Service's backend, or answers 500 ("") when the ref does not resolve or
// weighs 0. A rule of several always goes to a backend of its own that balances their
// endpoints by their weights (weightedBackend), whatever the weights and whichever refs
// resolve: a weight moving to or from 0, or a ref moving between resolved and not, then
// changes that backend's endpoints and shares alone, which are pushed, and never the
// location, which is rendered and would cost a reload. A part of weight 0 gets no
// request; a backendRef that does not resolve has its share answered 500, as the spec
// says; and when no part with a weight resolves, every request is. It returns an error
// when the backends with a weight speak differently (TLS to one, plain HTTP to another),
// which one location cannot.
//
// A rule of one backendRef pays for going straight to the shared backend: its weight
// moving between 0 and more changes its location, a reload. Giving every such rule a
// weighted backend of its own would make that a push too, at the cost of a second copy
// of every routed Service's endpoints in the store, the push and shared memory, and of
// counters kept under the rule's name instead of the Service's.
func (gp *gatewayPlan) ruleBackend(rp *routePlan, rule int, refs []weightedRef, protocol string) (string, error) {
	var parts []weightedPart
	var failing int32
	// like is the backend the rule's speaks as: its first part with a weight, else its
	// first that resolves, so that its protocol stays while weights move.
	var like *api.Backend
	for _, r := range refs {
		name := gp.serviceBackend(rp, r.ref, protocol)
		var part api.SplitPart
		if name != "" {
			part = api.SplitPart{Namespace: refNamespace(r.ref.Namespace, rp.meta.Namespace), Service: string(r.ref.Name),
				Port: int(*r.ref.Port), Weight: int(r.weight)}
			rp.recordPort(part, rp.backends[name])
		}
		switch {
		case name == "":
			failing += r.weight
		case r.weight == 0:
			if like == nil {
				like = rp.backends[name]
			}
		default:
			parts = append(parts, weightedPart{b: rp.backends[name], part: part})
		}
	}
	if len(refs) == 1 {
		if len(parts) == 0 {
			return "", nil
		}
		return parts[0].b.Name, nil
	}
	for _, p := range parts {
		if !api.SameUpstream(p.b, parts[0].b) {
			return "", fmt.Errorf("backendRefs: %s and %s speak differently (a BackendTLSPolicy covers one and not the other, or two with different CAs or hostnames), and one rule's requests go through one upstream",
				parts[0].b.Name, p.b.Name)
		}
	}
	switch {
	case len(parts) > 0:
		like = parts[0].b
	case like == nil:
		like = &api.Backend{}
		if protocol == api.ProtocolGRPC {
			like.Protocol = api.ProtocolGRPC
		}
	}
	name := objectName(lowerKind(rp.kind) + "." + rp.meta.Namespace + "." + rp.meta.Name + ".rule" + strconv.Itoa(rule))
	b := weightedBackend(name, rp.source(), parts, failing, like)
	if err := b.Validate(); err != nil {
		rp.unresolved(gatewayv1.RouteReasonBackendNotFound, "%s: the backend balancing its backendRefs: %v", rp.rule(rule), err)
		return "", nil
	}
	rp.backends[name] = b
	return name, nil
}

// isExternalNameRefusal reports whether backendFor refused an ExternalName Service.
func isExternalNameRefusal(err error) bool { return errors.Is(err, errExternalName) }
