package reconciler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Client certificate annotations (policies): auth-tls-secret names a Secret of
// the Ingress's own namespace whose ca.crt client certificates must chain to (see
// casecret.go); the others tune the verification. nginx verifies in the TLS handshake,
// per server block, so the policy is the host's: every Ingress routing on a host must
// ask the same, and one that differs from the oldest is refused on that host.

// clientTLSAnnotations are the names that need auth-tls-secret.
var clientTLSAnnotations = []string{"auth-tls-verify-client", "auth-tls-verify-depth", "auth-tls-error-page", "auth-tls-pass-certificate-to-upstream"}

// clientTLSGroup: client certificates, verified per host in the TLS handshake.
var clientTLSGroup = annotationGroup{name: "client certificates", scope: scopeHost, rules: map[string]annotationRule{
	"auth-tls-secret":        honoured("a Secret's ca.crt (kubernetes.io/tls or Opaque) of the Ingress's own namespace, or of another one whose ReferenceGrant lets the Ingress use it; every Ingress of a host must ask the same; a host without a TLS entry is served over HTTPS with the proxy's default certificate, as ingress-nginx serves it, and its plain HTTP redirects there (ingress-nginx served plain HTTP without asking for the certificate), so ssl-redirect false refuses such an Ingress"),
	"auth-tls-verify-client": honoured("on, optional, optional_no_ca or off"), "auth-tls-verify-depth": honoured("1-10"),
	"auth-tls-error-page":                   honoured("a 302 to an http(s) URL, no nginx variables"),
	"auth-tls-pass-certificate-to-upstream": honoured("ssl-client-cert, URL-escaped PEM; ssl-client-verify and the DNs are always sent"),
	"auth-tls-match-cn":                     refused(whyAccess),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.clientTLS, err = parseClientTLS(get)
	return err
}}

// parseClientTLS reads the auth-tls-* annotations through get; it returns nil when the
// Ingress asks for no client certificate. The caCertificate is named when the plan reads
// the Secret.
func parseClientTLS(get func(string) (string, bool)) (*api.ClientTLS, error) {
	secret, ok := get("auth-tls-secret")
	if !ok {
		for _, n := range clientTLSAnnotations {
			if _, ok := get(n); ok {
				return nil, fmt.Errorf("annotation %s needs auth-tls-secret", n)
			}
		}
		return nil, nil
	}
	for _, part := range strings.SplitN(secret, "/", 2) {
		if api.ValidName("auth-tls-secret", part) != nil {
			return nil, fmt.Errorf("annotation auth-tls-secret: %q is not a Secret name or namespace/name", printableValue(secret))
		}
	}
	// ingress-nginx's defaults, spelled out so that the history holds what applies.
	c := &api.ClientTLS{CACertificate: "x", Verify: api.VerifyOn, Depth: 1}
	if v, ok := get("auth-tls-verify-client"); ok {
		c.Verify = v
	}
	if v, ok := get("auth-tls-verify-depth"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("annotation auth-tls-verify-depth: %q is not a number 1-%d", v, api.MaxVerifyDepth)
		}
		c.Depth = n
	}
	c.ErrorPage, _ = get("auth-tls-error-page")
	if v, ok := get("auth-tls-pass-certificate-to-upstream"); ok {
		pass, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("annotation auth-tls-pass-certificate-to-upstream: %q is not true or false", v)
		}
		c.PassCertificateToUpstream = pass
	}
	// The same checks as a REST server's, with the annotation's names.
	srv := api.Server{Name: "x", Hostnames: []string{"x"}, TLS: &api.ServerTLS{Certificate: "x"}, ClientTLS: c}
	if err := srv.Validate(); err != nil {
		return nil, fmt.Errorf("auth-tls annotations: %w", err)
	}
	c.CACertificate = ""
	return c, nil
}

// planClientTLS makes the caCertificate of the Ingress's auth-tls-secret for every host it
// routes. A client certificate is asked for in the TLS handshake, so a host without a TLS
// entry is served as ingress-nginx serves it, over HTTPS with the proxy's default
// certificate (ingress-nginx's server of every host listens on 443 with its own), and
// plain HTTP redirects there (ssl-redirect): ingress-nginx served plain HTTP without asking
// for the certificate, which restyplane does not. With ssl-redirect false such a host
// would be served without the certificate over plain HTTP: the Ingress is refused.
func (p *plan) planClientTLS(snap *Snapshot, hosts []string) error {
	c := p.ann.clientTLS
	if c == nil {
		return nil
	}
	key, err := secretAnnotation(p.ing, "auth-tls-secret")
	if err != nil {
		return err
	}
	if err := secretPermitted(p.ing, "auth-tls-secret", key, snap); err != nil {
		return err
	}
	name, err := p.caCertificateFor(snap, key)
	if err != nil {
		return fmt.Errorf("annotation auth-tls-secret: %w", err)
	}
	for _, h := range hosts {
		if _, ok := p.tls[h]; ok {
			continue
		}
		if h == api.CatchAllHostname || !p.ann.sslRedirect {
			return fmt.Errorf("%w: auth-tls-secret asks for client certificates on %s, which has no applied TLS entry in this Ingress, and %s; a client certificate is asked for in the TLS handshake",
				errRefusedAnnotation, hostOrCatchAll(h), noTLSWhy(h))
		}
		p.tls[h] = defaultCert
		p.warnings = append(p.warnings, fmt.Sprintf("auth-tls-secret asks for client certificates on host %s, which has no TLS entry: it is served over HTTPS with the proxy's self-signed default certificate, as ingress-nginx serves it with its own, and plain HTTP redirects to HTTPS, where ingress-nginx served it without the certificate", h))
	}
	own := *c
	own.CACertificate = name
	p.clientTLS = &own
	return nil
}

// hostOrCatchAll names a rule's host for messages.
func hostOrCatchAll(h string) string {
	if h == api.CatchAllHostname {
		return "the rule without a host"
	}
	return "host " + h
}

// noTLSWhy says why a host without a TLS entry cannot be served with the default
// certificate and client verification.
func noTLSWhy(h string) string {
	if h == api.CatchAllHostname {
		return "the catch-all server takes no client verification of its own"
	}
	return "ssl-redirect false would serve it over plain HTTP, where no certificate is asked for"
}

// clientTLSConflict says why a route of p may not join the host's server, "" if it may:
// the host verifies clients as its oldest Ingress asked.
func clientTLSConflict(hb *hostBuild, p *plan) string {
	if hb == nil || api.SameClientTLS(hb.clientTLS, p.clientTLS) {
		return ""
	}
	return fmt.Sprintf("older %s verifies client certificates on it %s, and this Ingress asks %s; every Ingress of a host must agree",
		hostOwner(hb), describeClientTLS(hb.clientTLS), describeClientTLS(p.clientTLS))
}

func describeClientTLS(c *api.ClientTLS) string {
	if c == nil {
		return "not at all"
	}
	return fmt.Sprintf("(CA %s, verify %s, depth %d, error page %q, certificate to upstream %t)",
		c.CACertificate, c.Verify, c.Depth, c.ErrorPage, c.PassCertificateToUpstream)
}
