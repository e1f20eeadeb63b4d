package render

import (
	"fmt"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// clientTLSView is a server block's client certificate verification (policies)
// as the template writes it. ssl_verify_client and its companions are server-level in
// nginx: the handshake is over before any location is chosen.
type clientTLSView struct {
	// CA is the name of the caCertificate; CAFile is the file nginx reads it from,
	// filled by resolveClientTLS.
	CA, CAFile string
	Verify     string
	Depth      string
	ErrorPage  string
	// Headers are the ssl-client-* request headers every location of the block sets.
	// Their values are nginx variables chosen here, never user text.
	Headers []defaultHeader
	// Redirect sends plain-HTTP requests to HTTPS: verification happens in the TLS
	// handshake only, and a plain request would reach the upstream unverified.
	Redirect bool
}

// newClientTLSView picks the block's client verification; the api servers of one block
// share hostnames and api refuses them when they differ, so a difference here is a state
// written around api's checks and refused too.
func newClientTLSView(servers []*api.Server, hostnames []string) (*clientTLSView, error) {
	var c *api.ClientTLS
	for i, s := range servers {
		if i > 0 && !api.SameClientTLS(servers[0].ClientTLS, s.ClientTLS) {
			return nil, fmt.Errorf("servers %q and %q share hostnames %v but differ in clientTLS", servers[0].Name, s.Name, hostnames)
		}
		c = s.ClientTLS
	}
	if c == nil {
		return nil, nil
	}
	n := *c
	if n.Verify == "" {
		n.Verify = api.VerifyOn
	}
	if n.Depth == 0 {
		n.Depth = 1
	}
	v := &clientTLSView{CA: n.CACertificate, Verify: n.Verify, Depth: strconv.Itoa(n.Depth),
		ErrorPage: n.ErrorPage, Redirect: n.Verify != api.VerifyOff}
	cert := `""` // an empty value drops a header the client sent under that name
	if n.PassCertificateToUpstream {
		cert = "$ssl_client_escaped_cert"
	}
	v.Headers = []defaultHeader{
		{Name: "ssl-client-verify", Value: "$ssl_client_verify"},
		{Name: "ssl-client-subject-dn", Value: "$ssl_client_s_dn"},
		{Name: "ssl-client-issuer-dn", Value: "$ssl_client_i_dn"},
		{Name: "ssl-client-cert", Value: cert},
	}
	return v, nil
}

// resolveClientTLS names the CA file of the block's client verification; caFile maps a
// caCertificate's name to its file and reports whether the config holds it.
func resolveClientTLS(sv *serverView, caFile func(string) (string, bool)) error {
	c := sv.ClientTLS
	if c == nil {
		return nil
	}
	if sv.TLS == "" {
		return fmt.Errorf("clientTLS needs tls")
	}
	f, ok := caFile(c.CA)
	if !ok {
		return fmt.Errorf("caCertificate %q is not in the config", c.CA)
	}
	c.CAFile = f
	return nil
}
