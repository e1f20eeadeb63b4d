package nginx

import (
	"fmt"
	"os"

	"github.com/restyplane/restyplane/api"
)

// writeClientCerts writes the client certificates that backends present to their
// endpoints, 0600 in a 0700 directory, unless they are there already.
func (l layout) writeClientCerts(cfg api.Config) error {
	used := map[string]bool{}
	for _, b := range cfg.Backends {
		if t := b.UpstreamTLS; t != nil && t.ClientCertificate != "" {
			used[t.ClientCertificate] = true
		}
	}
	if len(used) == 0 {
		return nil
	}
	if err := os.MkdirAll(l.Path("upstream-certs"), 0o700); err != nil {
		return fmt.Errorf("create upstream-certs directory: %w", err)
	}
	for i := range cfg.Certificates {
		c := &cfg.Certificates[i]
		if !used[c.Name] || c.Key == "" {
			continue
		}
		crt, key, err := l.ClientCertPaths(c)
		if err != nil {
			return err
		}
		if _, err := os.Stat(key); err == nil {
			continue
		}
		if err := writeFileAtomic(crt, []byte(c.Cert), 0o600); err != nil {
			return fmt.Errorf("write certificate %s: %w", c.Name, err)
		}
		if err := writeFileAtomic(key, []byte(c.Key), 0o600); err != nil {
			return fmt.Errorf("write certificate key %s: %w", c.Name, err)
		}
	}
	return nil
}
