package reconciler

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// CA bundles from Secrets (policies). An annotation that names a Secret for its
// ca.crt (proxy-ssl-secret; auth-tls-secret) makes a caCertificate object of it, named
// for the Secret's namespace and name and owned by it, like a TLS Secret's certificate.
// The Secret may be of type kubernetes.io/tls or Opaque; it must be of the Ingress's own
// namespace: one team never makes another's CA its own.

// caCertKey is the data key of a CA bundle in a Secret, as in ingress-nginx.
const caCertKey = "ca.crt"

// caSecretAnnotations are the annotations whose value names a Secret the reconciler reads
// a ca.crt (and, for proxy-ssl-secret, a client certificate) from.
var caSecretAnnotations = []string{"proxy-ssl-secret", "auth-tls-secret"}

// secretAnnotation returns the "namespace/name" key of the Secret an annotation names,
// "" when the Ingress sets no such annotation. Another namespace's Secret is used only
// where a ReferenceGrant lets the Ingress use it (secretPermitted).
func secretAnnotation(ing *networkingv1.Ingress, annotation string) (string, error) {
	v, ok := ing.Annotations[ownPrefix+annotation]
	if !ok {
		v, ok = ing.Annotations[nginxPrefix+annotation]
	}
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", nil
	}
	ns, name, found := strings.Cut(v, "/")
	if !found {
		ns, name = ing.Namespace, v
	}
	if api.ValidNamespace(annotation, ns) != nil {
		return "", fmt.Errorf("annotation %s: %q is not a Secret name or namespace/name", annotation, printableValue(v))
	}
	if err := api.ValidName(annotation, strings.ToLower(name)); err != nil || strings.ToLower(name) != name {
		return "", fmt.Errorf("annotation %s: %q is not a Secret name", annotation, printableValue(v))
	}
	return ns + "/" + name, nil
}

// caSecretKeys lists the Secrets an Ingress's annotations name for a CA bundle, for the
// informers' index, the snapshot and the plan's version. Those of another namespace are
// read only where a ReferenceGrant permits it (cluster.snapshotOf).
func caSecretKeys(ing *networkingv1.Ingress) []string {
	var keys []string
	for _, a := range caSecretAnnotations {
		if k, err := secretAnnotation(ing, a); err == nil && k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// caCertificateFor makes the caCertificate object of a Secret's ca.crt and adds it to the
// plan; it returns the object's name.
func (p *plan) caCertificateFor(snap *Snapshot, key string) (string, error) {
	s := snap.Secrets[key]
	if s == nil {
		return "", fmt.Errorf("Secret %s not found (a kubernetes.io/tls or Opaque Secret with a %s key)", key, caCertKey)
	}
	c, err := caCertificateOf(key, s)
	if err != nil {
		return "", err
	}
	if p.caCertificates == nil {
		p.caCertificates = map[string]*api.CACertificate{}
	}
	p.caCertificates[c.Name] = c
	return c.Name, nil
}

// caCertificateOf translates a Secret's ca.crt into a caCertificate, validating it.
func caCertificateOf(key string, s *corev1.Secret) (*api.CACertificate, error) {
	pem := s.Data[caCertKey]
	if len(pem) == 0 {
		return nil, fmt.Errorf("Secret %s has no %s key", key, caCertKey)
	}
	ns, name, _ := strings.Cut(key, "/")
	c := &api.CACertificate{Name: caCertificateName(ns, name), Cert: string(pem),
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: ns, Name: name, UID: string(s.UID)}}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("Secret %s: %s: %w", key, caCertKey, err)
	}
	return c, nil
}

// caCertificateName names the caCertificate object of one Secret.
func caCertificateName(namespace, secret string) string {
	return objectName(namespace + "." + secret)
}

// printableValue keeps an annotation value short and printable in a message.
func printableValue(v string) string {
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, v)
}
