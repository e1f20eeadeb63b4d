package reconciler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// listenerCertificate finds the certificate an HTTPS listener presents: its first
// certificateRef that is a TLS Secret of the Gateway's namespace, or of another one whose
// ReferenceGrant lets Gateways of this namespace use it, with a certificate and key that
// parse and belong together. restyplane presents one certificate per host, so the refs
// after it are not read. A listener without one has ResolvedRefs false: InvalidCertificateRef,
// or RefNotPermitted for another namespace's Secret that no grant lets it use.
func (gp *gatewayPlan) listenerCertificate(l *listenerState) {
	gw := l.gw.obj
	tls := l.spec.TLS
	if tls == nil || len(tls.CertificateRefs) == 0 {
		l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonInvalidCertificateRef), "an HTTPS listener needs tls.certificateRefs"
		return
	}
	if tls.Mode != nil && *tls.Mode != gatewayv1.TLSModeTerminate {
		l.acceptReason, l.acceptMsg = string(gatewayv1.ListenerReasonUnsupportedValue),
			fmt.Sprintf("tls.mode %s is not served: an HTTPS listener terminates TLS", *tls.Mode)
		return
	}
	ref := tls.CertificateRefs[0]
	ns := refNamespace(ref.Namespace, gw.Namespace)
	what := fmt.Sprintf("certificateRefs[0] (%s/%s)", ns, ref.Name)
	switch {
	case !isSecretRef(ref.Group, ref.Kind):
		l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonInvalidCertificateRef),
			fmt.Sprintf("%s is not a core Secret; restyplane reads certificates from kubernetes.io/tls Secrets", what)
		return
	case !permits(gp.snap.Grants, grantFrom{gatewayGroup, "Gateway", gw.Namespace}, grantTo{"", "Secret", ns, string(ref.Name)}):
		l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonRefNotPermitted),
			fmt.Sprintf("%s is of another namespace, and no ReferenceGrant in namespace %s lets Gateways of namespace %s use it", what, ns, gw.Namespace)
		return
	}
	s := gp.secrets[ns+"/"+string(ref.Name)]
	if s != nil && s.Type != corev1.SecretTypeTLS {
		l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonInvalidCertificateRef),
			fmt.Sprintf("%s is a Secret of type %s, not kubernetes.io/tls", what, s.Type)
		return
	}
	c, err := certificateFor(ns, string(ref.Name), gp.whole)
	if err != nil {
		l.refsReason, l.refsMsg = string(gatewayv1.ListenerReasonInvalidCertificateRef), fmt.Sprintf("%s: %v", what, err)
		return
	}
	l.cert, l.certObj = c.Name, c
}
