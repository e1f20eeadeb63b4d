package reconciler

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/api"
)

// Upstream annotations (policies): backend-protocol, the proxy-ssl-* of TLS to
// the backend, upstream-vhost, x-forwarded-prefix and service-upstream.

// upstreamAnnotations is what an Ingress's upstream annotations ask for.
type upstreamAnnotations struct {
	protocol string
	tls      *api.UpstreamTLS
	// secret is the "namespace/name" of proxy-ssl-secret, always the Ingress's namespace.
	secret string
	// host is upstream-vhost as written; plan.vhost fills in its variables per path.
	host, prefix    string
	serviceUpstream bool
}

// upstreamGroup: how the proxy speaks to the backend (protocol, TLS) and what it sends.
var upstreamGroup = annotationGroup{name: "upstream", scope: scopeBackend, rules: map[string]annotationRule{
	"backend-protocol": {verdict: api.VerdictHonoured, why: "HTTP, HTTPS, GRPC or GRPCS; AJP and FCGI are refused (HTTP and gRPC only)",
		refuseValue: func(v string) string {
			if p := strings.ToUpper(strings.TrimSpace(v)); p == "AJP" || p == "FCGI" {
				return "restyplane proxies HTTP and gRPC only; AJP and FastCGI backends are not offered"
			}
			return ""
		}},
	"proxy-ssl-secret": honoured("a kubernetes.io/tls or Opaque Secret of the Ingress's own namespace (or of another one whose ReferenceGrant lets the Ingress use it): ca.crt to verify against, tls.crt/tls.key presented; refused otherwise"),
	"proxy-ssl-verify": honoured("on or off"), "proxy-ssl-name": honoured("one DNS name, no nginx variables"),
	"proxy-ssl-server-name": honoured("on or off"), "upstream-vhost": honoured(whyVhost).at(scopeLocation),
	"x-forwarded-prefix": honoured("a plain path").at(scopeLocation), "service-upstream": honoured("the Service's cluster IP instead of its endpoints"),
	"proxy-ssl-verify-depth": refused(whyBackend),
	"proxy-ssl-ciphers":      refused(whyBackend), "proxy-ssl-protocols": refused(whyBackend),
	"secure-backends": offIsHarmless(refused(whyBackend)),
	"grpc-backend":    honoured("true is backend-protocol GRPC, the name ingress-nginx gave it before backend-protocol; backend-protocol wins where both are set"),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.up, err = parseUpstream(get)
	return err
}}

// parseUpstream reads the upstream annotations through get.
func parseUpstream(get func(string) (string, bool)) (upstreamAnnotations, error) {
	var u upstreamAnnotations
	if v, ok := get("backend-protocol"); ok {
		switch p := strings.ToUpper(v); p {
		case "HTTP", "HTTPS", "GRPC", "GRPCS":
			u.protocol = strings.ToLower(p)
		case "AJP", "FCGI":
			return u, fmt.Errorf("%w: annotation backend-protocol %s: restyplane proxies HTTP and gRPC only; AJP and FastCGI backends are not offered", errRefusedAnnotation, p)
		default:
			return u, fmt.Errorf("annotation backend-protocol: %q is not HTTP, HTTPS, GRPC or GRPCS", printableValue(v))
		}
	}
	if v, ok := get("grpc-backend"); ok {
		grpc, err := strconv.ParseBool(v)
		if err != nil {
			return u, fmt.Errorf("annotation grpc-backend: %q is not true or false", printableValue(v))
		}
		if grpc && u.protocol == "" {
			u.protocol = "grpc"
		}
	}
	t := &api.UpstreamTLS{}
	set := false
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"proxy-ssl-verify", &t.Verify}, {"proxy-ssl-server-name", &t.SNI}} {
		v, ok := get(f.name)
		if !ok {
			continue
		}
		switch strings.ToLower(v) {
		case "on", "true":
			*f.dst = true
		case "off", "false":
		default:
			return u, fmt.Errorf("annotation %s: %q is not on or off", f.name, printableValue(v))
		}
		set = true
	}
	if v, ok := get("proxy-ssl-name"); ok {
		if err := api.ValidHostname("proxy-ssl-name", v); err != nil || strings.Contains(v, "*") || v == api.CatchAllHostname {
			return u, fmt.Errorf("annotation proxy-ssl-name: %q must be one DNS name (no nginx variables)", printableValue(v))
		}
		t.ServerName, set = v, true
	}
	if v, ok := get("proxy-ssl-secret"); ok {
		// The Secret itself is read by planUpstream; here only its name's grammar.
		_, name, found := strings.Cut(v, "/")
		if !found {
			name = v
		}
		if api.ValidName("proxy-ssl-secret", name) != nil {
			return u, fmt.Errorf("annotation proxy-ssl-secret: %q is not a Secret name or namespace/name", printableValue(v))
		}
		set = true
	}
	if set {
		if !api.TLSProtocol(u.protocol) {
			return u, fmt.Errorf("annotation proxy-ssl-*: TLS to the backend needs backend-protocol HTTPS or GRPCS")
		}
		u.tls = t
	}
	if v, ok := get("upstream-vhost"); ok {
		if err := parseVhost(v); err != nil {
			return u, err
		}
		u.host = v
	}
	if v, ok := get("x-forwarded-prefix"); ok {
		if err := api.ValidPath("x-forwarded-prefix", v); err != nil {
			return u, fmt.Errorf("annotation x-forwarded-prefix: %q must be a plain path such as /shop: %w", printableValue(v), err)
		}
		u.prefix = v
	}
	if v, ok := get("service-upstream"); ok {
		switch strings.ToLower(v) {
		case "true":
			u.serviceUpstream = true
		case "false":
		default:
			return u, fmt.Errorf("annotation service-upstream: %q is not true or false", printableValue(v))
		}
	}
	return u, nil
}

// planUpstream reads proxy-ssl-secret: its ca.crt becomes the CA bundle verified against,
// and its tls.crt and tls.key, when it has them, the client certificate presented to the
// backend, as in ingress-nginx.
func (p *plan) planUpstream(snap *Snapshot) error {
	u := &p.ann.up
	key, err := secretAnnotation(p.ing, "proxy-ssl-secret")
	if err != nil || key == "" || u.tls == nil {
		if err == nil && u.tls != nil && u.tls.Verify {
			return fmt.Errorf("annotation proxy-ssl-verify on needs proxy-ssl-secret, a Secret with the ca.crt to verify against")
		}
		return err
	}
	if err := secretPermitted(p.ing, "proxy-ssl-secret", key, snap); err != nil {
		return err
	}
	t := *u.tls
	s := snap.Secrets[key]
	if s == nil {
		return fmt.Errorf("proxy-ssl-secret %s not found (a kubernetes.io/tls or Opaque Secret of the Ingress's namespace)", key)
	}
	if len(s.Data[caCertKey]) > 0 {
		if t.CACertificate, err = p.caCertificateFor(snap, key); err != nil {
			return fmt.Errorf("proxy-ssl-secret: %w", err)
		}
	} else if t.Verify {
		return fmt.Errorf("proxy-ssl-secret %s has no %s to verify the backend against", key, caCertKey)
	}
	if len(s.Data[corev1.TLSCertKey]) > 0 || len(s.Data[corev1.TLSPrivateKeyKey]) > 0 {
		ns, name, _ := strings.Cut(key, "/")
		c, err := certificateOf(ns, name, s)
		if err != nil {
			return fmt.Errorf("proxy-ssl-secret: %w", err)
		}
		if p.clientCerts == nil {
			p.clientCerts = map[string]*api.Certificate{}
		}
		p.clientCerts[c.Name] = c
		t.ClientCertificate = c.Name
	}
	u.tls = &t
	return nil
}

// withUpstream sets a backend's protocol and TLS as the Ingress asks, and with
// service-upstream routes to the Service's cluster IP instead of its endpoints.
func (p *plan) withUpstream(be *api.Backend, key string, port string, snap *Snapshot) error {
	u := p.ann.up
	be.Protocol, be.UpstreamTLS = u.protocol, u.tls
	if !u.serviceUpstream {
		return nil
	}
	svc := snap.Services[key]
	if svc == nil {
		return nil // backendFor warned already
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil {
		return fmt.Errorf("annotation service-upstream: Service %s has no cluster IP (%q): a headless Service has only its endpoints", key, svc.Spec.ClusterIP)
	}
	for _, sp := range svc.Spec.Ports {
		if sp.Name == port || fmt.Sprint(sp.Port) == port {
			be.Endpoints = []api.Endpoint{{Address: ip.String(), Port: int(sp.Port), Weight: 1}}
			return nil
		}
	}
	return fmt.Errorf("annotation service-upstream: Service %s has no port %s", key, port)
}
