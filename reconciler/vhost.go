package reconciler

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// vhostVariables are the variables upstream-vhost may name: ingress-nginx sets them in
// each path's location, and restyplane fills them in when it translates the path, so the
// Host header sent upstream is a fixed name per path ($service_name.$namespace.svc.cluster.local,
// as ingress-nginx's users write it for ExternalName Services), never text of the request.
var vhostVariables = map[string]func(ns, ingress string, svc *networkingv1.IngressServiceBackend) string{
	"service_name": func(_, _ string, svc *networkingv1.IngressServiceBackend) string { return svc.Name },
	"service_port": func(_, _ string, svc *networkingv1.IngressServiceBackend) string { return portKey(svc.Port) },
	"namespace":    func(ns, _ string, _ *networkingv1.IngressServiceBackend) string { return ns },
	"ingress_name": func(_, ingress string, _ *networkingv1.IngressServiceBackend) string { return ingress },
}

// whyVhost: how upstream-vhost is read.
const whyVhost = "one DNS name, no port; $service_name, $service_port, $namespace and $ingress_name, ingress-nginx's per-path variables, " +
	"are filled in for each path (the Host is then a fixed name per path); any other variable is refused"

// parseVhost checks an upstream-vhost: a DNS name once each variable of vhostVariables
// stands for a label.
func parseVhost(v string) error {
	for rest := v; strings.Contains(rest, "$"); {
		i := strings.IndexByte(rest, '$')
		name := variableRe.FindString(rest[i:])
		if _, ok := vhostVariables[name[1:]]; !ok {
			return fmt.Errorf("annotation upstream-vhost: %s is not one of the variables it may name ($service_name, $service_port, $namespace, $ingress_name): the Host sent upstream is never taken from the request", name)
		}
		rest = rest[i+len(name):]
	}
	if err := api.ValidHostname("upstream-vhost", fillVhost(v, func(string) string { return "x" })); err != nil || strings.Contains(v, "*") || v == api.CatchAllHostname {
		return fmt.Errorf("annotation upstream-vhost: %q must be one DNS name (no port), which may name $service_name, $service_port, $namespace and $ingress_name", printableValue(v))
	}
	return nil
}

// fillVhost replaces each $name of v by value(name).
func fillVhost(v string, value func(string) string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			b.WriteByte(v[i])
			continue
		}
		name := variableRe.FindString(v[i:])
		b.WriteString(value(name[1:]))
		i += len(name) - 1
	}
	return b.String()
}

// vhost is the Host the upstream-vhost of the plan's Ingress sends for a path routed to
// svc: its variables filled in, checked as a DNS name.
func (p *plan) vhost(svc *networkingv1.IngressServiceBackend) (string, error) {
	v := p.ann.up.host
	if !strings.Contains(v, "$") || svc == nil {
		return v, nil
	}
	host := fillVhost(v, func(name string) string { return vhostVariables[name](p.ing.Namespace, p.ing.Name, svc) })
	if err := api.ValidHostname("upstream-vhost", host); err != nil {
		return "", fmt.Errorf("annotation upstream-vhost: %q gives %q for Service %s, which is not a DNS name", v, host, svc.Name)
	}
	return host, nil
}
