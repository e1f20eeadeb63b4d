package openresty

import (
	"bytes"
	"fmt"
	"os"

	"github.com/restyplane/restyplane/api"
)

// writeCACertificates writes every CA bundle to <prefix>/ca/<fingerprint>.pem unless it is
// there already (policies). nginx's master reads the files when it parses the
// conf (proxy_ssl_trusted_certificate, ssl_client_certificate), so they stay 0600 in a
// 0700 directory like the certificates. Named by content, a file never changes under a
// running nginx, and Render may write it before the conf that names it exists.
func (l layout) writeCACertificates(cas []api.CACertificate) error {
	if len(cas) == 0 {
		return nil
	}
	if err := os.MkdirAll(l.caDir(), 0o700); err != nil {
		return fmt.Errorf("create ca directory: %w", err)
	}
	for i := range cas {
		path, err := l.caFile(&cas[i])
		if err != nil {
			return err
		}
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, []byte(cas[i].Cert)) {
			continue
		}
		if err := writeFileAtomic(path, []byte(cas[i].Cert), 0o600); err != nil {
			return fmt.Errorf("write caCertificate %s: %w", cas[i].Name, err)
		}
	}
	return nil
}

func (l layout) caDir() string { return l.path("ca") }

// caFile is where a CA bundle version lives: <prefix>/ca/<sha256 of its PEM>.pem.
func (l layout) caFile(c *api.CACertificate) (string, error) {
	name, err := api.CACertificateFile(c)
	if err != nil {
		return "", err
	}
	return l.path("ca", name), nil
}

// caFiles maps each CA bundle to the file nginx reads it from.
func caFiles(l layout, cas []api.CACertificate) (map[string]string, error) {
	files := make(map[string]string, len(cas))
	for i := range cas {
		f, err := l.caFile(&cas[i])
		if err != nil {
			return nil, err
		}
		files[cas[i].Name] = f
	}
	return files, nil
}

// sameCACertificates reports whether two states hold the same CA bundle versions, and so
// name the same files in their confs.
func sameCACertificates(a, b *api.State) bool {
	if len(a.CACertificates) != len(b.CACertificates) {
		return false
	}
	for name, c := range b.CACertificates {
		if r := a.CACertificates[name]; r == nil || r.Version != c.Version {
			return false
		}
	}
	return true
}
