package reconciler

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// attach attaches a route to the listeners its parentRefs select, as Gateway API says:
// a parentRef's sectionName and port narrow the Gateway's listeners (none left:
// NoMatchingParent); of those, the listeners whose allowedRoutes admit the route's kind and
// namespace (none: NotAllowedByListeners); of those, the listeners with a hostname the
// route's intersect (none: NoMatchingListenerHostname). A parentRef naming no Gateway of
// restyplane's classes is another controller's, and is left alone.
func (gp *gatewayPlan) attach(rp *routePlan) {
	for _, ref := range rp.parentRefs {
		if !isGatewayRef(ref) {
			continue
		}
		g := gp.gateways[refNamespace(ref.Namespace, rp.meta.Namespace)+"/"+string(ref.Name)]
		if g == nil {
			continue
		}
		ps := &parentState{ref: ref, gw: g}
		rp.parents = append(rp.parents, ps)
		ps.acceptReason, ps.acceptMsg = gp.attachParent(rp, ps)
	}
}

// attachParent attaches the route to the listeners of one parentRef, and returns the
// reason it is not accepted there ("" when it is) with a message.
func (gp *gatewayPlan) attachParent(rp *routePlan, ps *parentState) (string, string) {
	g, ref := ps.gw, ps.ref
	if g.refusal != "" {
		return string(gatewayv1.RouteReasonNoMatchingParent), fmt.Sprintf("Gateway %s/%s is not accepted: %s", g.obj.Namespace, g.obj.Name, g.refusal)
	}
	var selected []*listenerState
	for _, l := range g.listeners {
		if ref.SectionName != nil && *ref.SectionName != l.spec.Name {
			continue
		}
		if ref.Port != nil && *ref.Port != l.spec.Port {
			continue
		}
		selected = append(selected, l)
	}
	if len(selected) == 0 {
		return string(gatewayv1.RouteReasonNoMatchingParent), fmt.Sprintf("Gateway %s/%s has no listener%s", g.obj.Namespace, g.obj.Name, selection(ref))
	}
	var allowed []*listenerState
	for _, l := range selected {
		if l.allows(rp.kind) && gp.admits(l, rp.meta.Namespace) {
			allowed = append(allowed, l)
		}
	}
	if len(allowed) == 0 {
		return string(gatewayv1.RouteReasonNotAllowedByListeners),
			fmt.Sprintf("no listener%s of Gateway %s/%s admits %ss of namespace %s", selection(ref), g.obj.Namespace, g.obj.Name, rp.kind, rp.meta.Namespace)
	}
	for _, l := range allowed {
		if len(routeHosts(l.spec.Hostname, rp.hostnames)) > 0 {
			ps.listeners = append(ps.listeners, l)
		}
	}
	if len(ps.listeners) == 0 {
		return string(gatewayv1.RouteReasonNoMatchingListenerHostname),
			fmt.Sprintf("no hostname of the route matches a listener%s of Gateway %s/%s", selection(ref), g.obj.Namespace, g.obj.Name)
	}
	return "", ""
}

// selection spells a parentRef's sectionName and port for a message.
func selection(ref gatewayv1.ParentReference) string {
	s := ""
	if ref.SectionName != nil {
		s += fmt.Sprintf(" named %s", *ref.SectionName)
	}
	if ref.Port != nil {
		s += fmt.Sprintf(" on port %d", *ref.Port)
	}
	return s
}

// admits reports whether a listener's allowedRoutes.namespaces admits routes of namespace
// ns: its Gateway's own namespace (Same, the default), every namespace (All), or those
// whose labels its selector matches (Selector).
func (gp *gatewayPlan) admits(l *listenerState, ns string) bool {
	from := gatewayv1.NamespacesFromSame
	var sel *metav1.LabelSelector
	if ar := l.spec.AllowedRoutes; ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		sel = ar.Namespaces.Selector
	}
	switch from {
	case gatewayv1.NamespacesFromAll:
		return true
	case gatewayv1.NamespacesFromSelector:
		if sel == nil {
			return false
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && s.Matches(labels.Set(gp.snap.NamespaceLabels[ns]))
	case gatewayv1.NamespacesFromSame:
		return ns == l.gw.obj.Namespace
	}
	return false
}
