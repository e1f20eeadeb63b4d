package reconciler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/restyplane/restyplane/api"
)

// certificateFor builds the certificate of one TLS Secret. A missing Secret, one without a
// certificate and key, or one whose PEM does not parse is an error: serving the host without
// the TLS its Ingress asks for would quietly downgrade it to plain HTTP.
func certificateFor(namespace, name string, snap *Snapshot) (*api.Certificate, error) {
	key := namespace + "/" + name
	s := snap.Secrets[key]
	if s == nil {
		return nil, fmt.Errorf("TLS Secret %s not found", key)
	}
	return snap.cache.certsMemo().get(key, string(s.UID)+"/"+s.ResourceVersion, func() (*api.Certificate, error) {
		return certificateOf(namespace, name, s)
	})
}

// certificateOf translates a TLS Secret into a certificate, validating it.
func certificateOf(namespace, name string, s *corev1.Secret) (*api.Certificate, error) {
	key := namespace + "/" + name
	crt, k := s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 || len(k) == 0 {
		return nil, fmt.Errorf("Secret %s has no %s and %s", key, corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	c := &api.Certificate{
		Name:   certificateName(namespace, name),
		Cert:   string(crt),
		Key:    string(k),
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: namespace, Name: name, UID: string(s.UID)},
	}
	if err := c.Validate(true); err != nil {
		return nil, fmt.Errorf("Secret %s: %w", key, err)
	}
	if !c.KeyMatches {
		return nil, fmt.Errorf("Secret %s: the private key does not belong to the certificate", key)
	}
	return c, nil
}
