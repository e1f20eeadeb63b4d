package e2e

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
)

// corpusProbe is the request that shows a served Ingress answering through the proxy: to
// its first rule's host, on a path that rule routes, over TLS when the host has a
// certificate, with what the Ingress's own annotations ask of a client (credentials, a
// canary header, an allowed source address, a client certificate).
type corpusProbe struct {
	host, path string
	tls        bool
	local      string   // the source address
	hdr        []string // header name, value, …
	cert       *tls.Certificate
	// from are the upstreams whose answer counts: the path's Service, and the other
	// Services the file routes the same host and path to (a canary and its main Ingress).
	from   []string
	grpc   bool   // the path's Service speaks gRPC: the probe is a gRPC health check
	method string // GET if empty
	// redirect is where the proxy must redirect the probe instead of proxying it (a
	// rewrite-target that is a URL), "" when the upstream answers.
	redirect string
}

// probeOf builds the probe of a served Ingress, or says why the proxy cannot show the
// upstream answering (the host and path are still what the protection checks use).
// A TLS entry that restyplane refused (tlsRefused) leaves the host on plain HTTP.
func probeOf(cf *corpusFile, ing *networkingv1.Ingress, clientCert *tls.Certificate, tlsRefused bool) (corpusProbe, string) {
	p := corpusProbe{local: "127.0.0.1", host: "default-backend." + cf.ns + ".test", path: "/"}
	var backend *networkingv1.IngressBackend
	var pathType networkingv1.PathType = networkingv1.PathTypePrefix
	for _, r := range ing.Spec.Rules {
		if r.HTTP != nil && len(r.HTTP.Paths) > 0 {
			hp := r.HTTP.Paths[0]
			p.host, p.path, backend = r.Host, hp.Path, &hp.Backend
			if hp.PathType != nil {
				pathType = *hp.PathType
			}
			break
		}
	}
	if backend == nil {
		backend = ing.Spec.DefaultBackend
	}
	if backend == nil || backend.Service == nil {
		return p, "its first rule routes to no Service"
	}
	regex := pathType == networkingv1.PathTypeImplementationSpecific && strings.ContainsAny(p.path, `^$()[]{}*+?|\`)
	if v, _ := annotation(ing, "use-regex"); v == "true" {
		regex = true
	}
	if _, ok := annotation(ing, "rewrite-target"); ok && strings.ContainsAny(p.path, `()[]*+?|\`) {
		regex = true
	}
	published := p.path
	switch {
	case p.path == "":
		p.path = "/"
	case regex:
		// ingress-nginx makes every path of a use-regex host a regex, Exact ones too.
		if p.path = samplePath(published); !samplePathMatches(published, p.path) {
			return p, "no concrete path found that the regex " + published + " matches"
		}
	default:
		p.path = (&url.URL{Path: p.path}).EscapedPath()
	}
	p.redirect = redirectOf(ing, published, p.path)
	if root, ok := annotation(ing, "app-root"); ok && p.path == "/" {
		p.path = root
	}
	p.tls = corpusHasTLS(cf, p.host) && !tlsRefused
	if v, _ := annotation(ing, "ssl-passthrough"); v == "true" {
		p.tls = true // the client's TLS session goes through to the backend
	}
	if _, ok := annotation(ing, "auth-tls-secret"); ok {
		// A host that asks for client certificates is served over HTTPS, with the default
		// certificate where it has no TLS entry.
		p.tls = true
	}
	for _, other := range cf.ingresses {
		for _, r := range other.Spec.Rules {
			if r.Host != p.host || r.HTTP == nil {
				continue
			}
			for _, hp := range r.HTTP.Paths {
				if hp.Backend.Service != nil && (hp.Backend.Service.Name == backend.Service.Name || hp.Path == published) {
					p.from = append(p.from, corpusUpstreamName(cf.ns, hp.Backend.Service.Name))
				}
			}
		}
	}
	if len(p.from) == 0 {
		p.from = []string{corpusUpstreamName(cf.ns, backend.Service.Name)}
	}
	proto, _ := annotation(ing, "backend-protocol")
	p.grpc = strings.HasPrefix(strings.ToUpper(proto), "GRPC")
	if p.grpc && !p.tls && published != "/" && published != "" {
		// Over h2c on the plain port, as a gRPC client without TLS speaks.
		return p, "a gRPC backend under the path " + published + ": a gRPC client calls /package.Service/Method, which that path does not take"
	}
	if at, _ := annotation(ing, "auth-type"); at == "basic" {
		p.hdr = append(p.hdr, "Authorization", basic("apr", "secret"))
	}
	if h, ok := annotation(ing, "canary-by-header"); ok {
		v, ok := annotation(ing, "canary-by-header-value")
		if !ok {
			v = "always"
		}
		p.hdr = append(p.hdr, h, v)
	}
	if c, ok := annotation(ing, "canary-by-cookie"); ok {
		p.hdr = append(p.hdr, "Cookie", c+"=always")
	}
	if _, ok := annotation(ing, "auth-tls-secret"); ok {
		p.cert = clientCert
	}
	if ranges, name := allowList(ing); name != "" {
		if a := loopbackIn(ranges, true); a != "" {
			p.local = a
		} else {
			return p, name + " allows no loopback address: no request of this machine may pass"
		}
	}
	if ranges, ok := annotation(ing, "denylist-source-range"); ok && p.local == "127.0.0.1" {
		if a := loopbackIn(ranges, false); a != "" {
			p.local = a
		}
	}
	if _, ok := annotation(ing, "auth-url"); ok {
		p.hdr = append(p.hdr, corpusAuthHeader, "allow") // the corpus's auth service lets it through
	}
	return p, ""
}

// corpusHasTLS says whether an Ingress of the file has a certificate for host.
func corpusHasTLS(cf *corpusFile, host string) bool {
	for _, ing := range cf.ingresses {
		for _, e := range ing.Spec.TLS {
			for _, h := range e.Hosts {
				if h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
					return true
				}
			}
			if len(e.Hosts) == 0 {
				return true
			}
		}
	}
	return false
}

// allowList returns an Ingress's allow list and its annotation's name, "" if it has none.
func allowList(ing *networkingv1.Ingress) (string, string) {
	for _, name := range []string{"whitelist-source-range", "allowlist-source-range"} {
		if v, ok := annotation(ing, name); ok {
			return v, name
		}
	}
	return "", ""
}

// loopbackIn returns a loopback address that a comma-separated list of CIDRs and addresses
// allows (inside true) or does not allow (inside false), "" when there is none to try.
func loopbackIn(ranges string, inside bool) string {
	for _, a := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.1.0.1", "127.255.0.1"} {
		if listAllows(ranges, a) == inside {
			return a
		}
	}
	return ""
}

// listAllows says whether a comma-separated list of CIDRs and addresses holds address a.
func listAllows(ranges, a string) bool {
	for _, r := range strings.Split(ranges, ",") {
		r = strings.TrimSpace(r)
		if !strings.Contains(r, "/") {
			r += "/32"
		}
		if _, n, err := net.ParseCIDR(r); err == nil && n.Contains(net.ParseIP(a)) {
			return true
		}
	}
	return false
}

// corpusAnswer is what the proxy answered a probe.
type corpusAnswer struct {
	code     int
	body     string
	location string
	header   http.Header
	err      error
}

// send sends the probe's request through the proxy (its plain or TLS listener) and
// follows one redirect to https on the same host, as a browser would after an
// ssl-redirect; once sends it without following.
func (p corpusProbe) send(in *instance) corpusAnswer {
	a := p.once(in)
	if a.err == nil && a.code >= 300 && a.code < 400 && !p.tls && strings.HasPrefix(a.location, "https://"+p.host+"/") {
		q := p
		q.tls, q.path = true, strings.TrimPrefix(a.location, "https://"+p.host)
		return q.once(in)
	}
	return a
}

func (p corpusProbe) once(in *instance) corpusAnswer {
	addr, scheme := strings.TrimPrefix(in.Proxy, "http://"), "http"
	if p.tls {
		addr, scheme = in.TLS, "https"
	}
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(p.local)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		DialTLSContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			raw, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			conn := tls.Client(raw, &tls.Config{ServerName: p.host, InsecureSkipVerify: true,
				GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
					if p.cert == nil {
						return &tls.Certificate{}, nil
					}
					return p.cert, nil
				}})
			if err := conn.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			return conn, nil
		}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	method := p.method
	if method == "" {
		method = "GET"
	}
	req, err := http.NewRequest(method, scheme+"://"+p.host+p.path, nil)
	if err != nil {
		return corpusAnswer{err: err}
	}
	for i := 0; i+1 < len(p.hdr); i += 2 {
		req.Header.Set(p.hdr[i], p.hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return corpusAnswer{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return corpusAnswer{code: resp.StatusCode, body: strings.TrimSpace(string(b)), location: resp.Header.Get("Location"), header: resp.Header}
}

// fromUpstream says whether the answer came from one of the probe's upstreams.
func (p corpusProbe) fromUpstream(a corpusAnswer) bool {
	if a.err != nil || a.code != 200 {
		return false
	}
	for _, f := range p.from {
		if strings.HasPrefix(a.body, f+" ") {
			return true
		}
	}
	return false
}
