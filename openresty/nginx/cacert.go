package nginx

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
	if err := os.MkdirAll(l.CADir(), 0o700); err != nil {
		return fmt.Errorf("create ca directory: %w", err)
	}
	for i := range cas {
		path, err := l.CAFile(&cas[i])
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
