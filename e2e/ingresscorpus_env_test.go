package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// What a team moving its Ingresses to a test cluster sets up around them, and the corpus
// harness too: restyplane's --default-backend (ingress-nginx's default backend Service,
// which answers custom-http-errors), and an auth service that auth-url annotations are
// pointed at in place of their cluster's. No trusted proxy is set (realIPFrom): restyplane
// refuses ssl-passthrough under one, and the corpus has passthrough Ingresses.

// Where the corpus's shared services live.
const (
	corpusDefaultsNS = "corpus-defaults"
	// corpusAuthHeader is the request header the corpus's auth service lets through
	// with the value "allow"; it answers 401 to any other request.
	corpusAuthHeader = "X-Corpus-Auth"
)

// corpusDefaultBackend returns the objects of the default backend's Service, with a real
// upstream on ip that answers with the Service's name, and the --default-backend flag
// that names it.
func corpusDefaultBackend(t testing.TB, ip string) ([]runtime.Object, string) {
	t.Helper()
	name := corpusUpstreamName(corpusDefaultsNS, "fallback")
	ep := serveOn(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		fmt.Fprintf(w, "%s %s code=%s\n", name, r.URL.Path, r.Header.Get("X-Code"))
	}))
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: corpusDefaultsNS, Name: "fallback"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: corpusDefaultsNS, Name: "fallback-corpus", Labels: map[string]string{discoveryv1.LabelServiceName: "fallback"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptrTo("http"), Port: ptrTo(int32(ep["port"].(int))), Protocol: ptrTo(corev1.ProtocolTCP)}},
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: corpusDefaultsNS}}
	return []runtime.Object{ns, svc, slice}, corpusDefaultsNS + "/fallback:80"
}

// corpusAuth is the external auth service the corpus's auth-url annotations are pointed
// at. It remembers the headers of the last subrequest for each original URL, so that a
// check can see a request went through it, with the headers an auth-snippet asked for.
type corpusAuth struct {
	addr string // host:port
	mu   sync.Mutex
	seen map[string]http.Header // by X-Original-URL's host and path
}

func newCorpusAuth(t testing.TB, ip string) *corpusAuth {
	t.Helper()
	a := &corpusAuth{seen: map[string]http.Header{}}
	ep := serveOn(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, err := url.Parse(r.Header.Get("X-Original-URL")); err == nil {
			a.mu.Lock()
			a.seen[u.Host+u.Path] = r.Header.Clone()
			a.mu.Unlock()
		}
		if r.Header.Get(corpusAuthHeader) == "allow" {
			w.WriteHeader(200)
			return
		}
		w.WriteHeader(401)
	}))
	a.addr = net.JoinHostPort(ip, fmt.Sprint(ep["port"]))
	return a
}

// asked returns the headers of the last subrequest for host and path, nil if none came.
func (a *corpusAuth) asked(host, path string) http.Header {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seen[host+strings.SplitN(path, "?", 2)[0]]
}

// point points the auth-url annotations of the corpus at the auth service, keeping their
// path and query, as a team moving them to a test cluster points them at the auth service
// it runs there. A URL whose host is a variable is left as published: restyplane refuses
// it, and says why.
func (a *corpusAuth) point(corpus []*corpusFile) {
	for _, cf := range corpus {
		for _, ing := range cf.ingresses {
			v, ok := ing.Annotations[nginxAnn+"auth-url"]
			if !ok {
				continue
			}
			scheme, rest, found := strings.Cut(strings.TrimSpace(v), "://")
			if !found || (scheme != "http" && scheme != "https") {
				continue
			}
			host, tail := rest, ""
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				host, tail = rest[:i], rest[i:]
			}
			if strings.Contains(host, "$") {
				continue
			}
			ing.Annotations[nginxAnn+"auth-url"] = "http://" + a.addr + tail
		}
	}
}
