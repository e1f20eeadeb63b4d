package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// Upstream protocols (policies). Each protocol, and each TLS policy, has an
// upstream block of its own, all balanced by the same Lua balancer: nginx keeps idle
// upstream connections per block and matches them by address alone, so a plain HTTP/1.1
// request must never be handed a kept TLS or HTTP/2 connection to the same endpoint, nor
// one TLS policy a connection another verified (see tlsPolicyKey).

// upstreamBlocks names the upstream block of each protocol.
var upstreamBlocks = map[string]string{
	api.ProtocolHTTP:  upstreamName,
	api.ProtocolHTTPS: upstreamName + "_https",
	api.ProtocolGRPC:  upstreamName + "_grpc",
	api.ProtocolGRPCS: upstreamName + "_grpcs",
}

// upstreamView is how a location speaks to its backend's endpoints. The zero value is
// plain HTTP. Every field is chosen here or validated by api; the template quotes them.
type upstreamView struct {
	// Scheme is proxy_pass's or grpc_pass's scheme and Block the upstream block.
	Scheme, Block string
	GRPC, TLS     bool
	Verify, SNI   bool
	// Trusted is the CA file, Cert and Key the client certificate's files.
	Trusted, Cert, Key string
	// Name is the name verified and sent as SNI; empty means the Host header sent.
	Name string
}

// upstreamsOf makes the view of every backend whose protocol is not plain HTTP.
func upstreamsOf(l Layout, cfg api.Config) (map[string]upstreamView, error) {
	cas, err := caFiles(l, cfg.CACertificates)
	if err != nil {
		return nil, err
	}
	certs := map[string]*api.Certificate{}
	for i := range cfg.Certificates {
		certs[cfg.Certificates[i].Name] = &cfg.Certificates[i]
	}
	ups := map[string]upstreamView{}
	for i := range cfg.Backends {
		b := &cfg.Backends[i]
		if b.Protocol == "" || b.Protocol == api.ProtocolHTTP {
			continue
		}
		block, ok := upstreamBlocks[b.Protocol]
		if !ok {
			return nil, fmt.Errorf("backend %q: protocol %q", b.Name, b.Protocol)
		}
		u := upstreamView{Scheme: b.Protocol, Block: block, GRPC: b.Protocol == api.ProtocolGRPC || b.Protocol == api.ProtocolGRPCS,
			TLS: api.TLSProtocol(b.Protocol)}
		if t := b.UpstreamTLS; t != nil && u.TLS {
			u.Verify, u.SNI, u.Name = t.Verify, t.SNI, t.ServerName
			if t.CACertificate != "" {
				if u.Trusted, ok = cas[t.CACertificate]; !ok {
					return nil, fmt.Errorf("backend %q: caCertificate %q is not in the config", b.Name, t.CACertificate)
				}
			}
			if t.ClientCertificate != "" {
				c := certs[t.ClientCertificate]
				if c == nil {
					return nil, fmt.Errorf("backend %q: certificate %q is not in the config", b.Name, t.ClientCertificate)
				}
				if u.Cert, u.Key, err = l.ClientCertPaths(c); err != nil {
					return nil, err
				}
			}
		}
		ups[b.Name] = u
	}
	return ups, nil
}

// ClientCertPaths are where a certificate presented to upstreams lives: named by the
// certificate's and key's contents, so that a rotation changes nginx.conf, and nginx,
// which reads them when it parses the conf, reloads.
func (l Layout) ClientCertPaths(c *api.Certificate) (cert, key string, err error) {
	if err := api.ValidName("name", c.Name); err != nil {
		return "", "", fmt.Errorf("certificate %q: %w", c.Name, err)
	}
	sum := sha256.Sum256([]byte(c.Cert + "\x00" + c.Key))
	base := l.Path("upstream-certs", c.Name+"-"+hex.EncodeToString(sum[:8]))
	return base + ".crt", base + ".key", nil
}
