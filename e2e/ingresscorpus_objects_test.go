package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// corpusCAs are the certificate authorities of the corpus's Secrets: upstream signs the
// certificates of HTTPS and GRPCS upstreams (proxy-ssl-secret's ca.crt), client is the CA
// that auth-tls-secret's Secrets hold, and the test's client certificate.
type corpusCAs struct {
	upstream, client *testCA
}

// corpusUpstreamName is the name a corpus upstream answers with: the Service it stands for.
func corpusUpstreamName(ns, service string) string { return ns + "/" + service }

// corpusService is a Service that a corpus file's Ingresses name, with the ports they name
// and the protocol their backend-protocol asks the upstream to speak.
type corpusService struct {
	ports map[string]int32 // port name to port number; 0 until numbered
	proto string
}

// objects returns what the file's Ingresses need in the cluster besides themselves: each
// Service they name, with an EndpointSlice listing one real upstream on ip that answers with
// the Service's name; a self-signed TLS Secret for each tls entry, covering its hosts; an
// htpasswd Secret (users of htpasswdLines, password "secret") for auth-secret; a CA Secret
// for auth-tls-secret and proxy-ssl-secret. The upstreams stop when the test ends.
func (cf *corpusFile) objects(t testing.TB, ip string, cas corpusCAs) []runtime.Object {
	t.Helper()
	services := cf.services()
	var out []runtime.Object
	for _, name := range sortedKeys(services) {
		s := services[name]
		port := cf.upstream(t, ip, name, s.proto, cas)
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: cf.ns, Name: name}}
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: cf.ns, Name: name + "-corpus", Labels: map[string]string{discoveryv1.LabelServiceName: name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(true)}}},
		}
		for _, pn := range sortedKeys(s.ports) {
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: pn, Port: s.ports[pn], Protocol: corev1.ProtocolTCP})
			slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: ptrTo(pn), Port: ptrTo(port), Protocol: ptrTo(corev1.ProtocolTCP)})
		}
		out = append(out, svc, slice)
	}
	secrets := cf.secrets(t, cas)
	for _, name := range sortedKeys(secrets) {
		out = append(out, secrets[name])
	}
	return out
}

// services collects the Services the file's Ingresses name: in their rules, as default
// backend, and in the default-backend annotation. A port named by number N is called
// "port-N"; a port named by name gets a number no other port of the Service has.
func (cf *corpusFile) services() map[string]*corpusService {
	out := map[string]*corpusService{}
	add := func(name string, port networkingv1.ServiceBackendPort, proto string) {
		s := out[name]
		if s == nil {
			s = &corpusService{ports: map[string]int32{}, proto: "HTTP"}
			out[name] = s
		}
		if proto == "HTTPS" || proto == "GRPC" || proto == "GRPCS" {
			s.proto = proto
		}
		if port.Name != "" {
			if _, ok := s.ports[port.Name]; !ok {
				s.ports[port.Name] = 0
			}
		} else {
			s.ports[fmt.Sprintf("port-%d", port.Number)] = port.Number
		}
	}
	for _, ing := range cf.ingresses {
		proto, _ := annotation(ing, "backend-protocol")
		proto = strings.ToUpper(proto)
		if v, _ := annotation(ing, "ssl-passthrough"); v == "true" && proto == "" {
			proto = "HTTPS" // the backend of a passthrough terminates the client's TLS itself
		}
		for _, b := range ingressBackends(ing) {
			if b.Service != nil {
				add(b.Service.Name, b.Service.Port, proto)
			}
		}
		if name, ok := annotation(ing, "default-backend"); ok && !strings.Contains(name, "/") {
			add(name, networkingv1.ServiceBackendPort{Number: 80}, "HTTP")
		}
	}
	for _, s := range out {
		used := map[int32]bool{}
		for _, n := range s.ports {
			used[n] = true
		}
		next := int32(30000)
		for _, pn := range sortedKeys(s.ports) {
			if s.ports[pn] != 0 {
				continue
			}
			for used[next] {
				next++
			}
			s.ports[pn], used[next] = next, true
		}
	}
	return out
}

// ingressBackends lists the backends of an Ingress: its default backend and its paths'.
func ingressBackends(ing *networkingv1.Ingress) []networkingv1.IngressBackend {
	var out []networkingv1.IngressBackend
	if ing.Spec.DefaultBackend != nil {
		out = append(out, *ing.Spec.DefaultBackend)
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP != nil {
			for _, p := range r.HTTP.Paths {
				out = append(out, p.Backend)
			}
		}
	}
	return out
}

// upstream starts the real upstream of a Service on ip and returns its port: HTTP by
// default, HTTPS or gRPC (over TLS for GRPCS) when an Ingress's backend-protocol asks.
func (cf *corpusFile) upstream(t testing.TB, ip, service, proto string, cas corpusCAs) int32 {
	t.Helper()
	name := corpusUpstreamName(cf.ns, service)
	var ep map[string]any
	switch proto {
	case "HTTPS":
		ep = tlsUpstreamOn(t, ip, name, cas.upstream, "upstream.corpus.test", nil)
	case "GRPC":
		ep = grpcUpstreamOn(t, ip, name, nil, "")
	case "GRPCS":
		ep = grpcUpstreamOn(t, ip, name, cas.upstream, "upstream.corpus.test")
	default:
		ep = serveOn(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %s\n", name, r.URL.Path)
		}))
	}
	return int32(ep["port"].(int))
}

// secrets returns the Secrets the file's Ingresses name in their own namespace; one named
// in another namespace is not made (restyplane refuses to read it, and says so).
func (cf *corpusFile) secrets(t testing.TB, cas corpusCAs) map[string]*corev1.Secret {
	t.Helper()
	out := map[string]*corev1.Secret{}
	get := func(name string) *corev1.Secret {
		if out[name] == nil {
			out[name] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cf.ns, Name: name},
				Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
		}
		return out[name]
	}
	tlsHosts := map[string][]string{}
	for _, ing := range cf.ingresses {
		for _, e := range ing.Spec.TLS {
			if e.SecretName == "" {
				continue
			}
			hosts := e.Hosts
			if len(hosts) == 0 {
				hosts = ingressRuleHosts(ing)
			}
			tlsHosts[e.SecretName] = append(tlsHosts[e.SecretName], hosts...)
		}
		if v, ok := annotation(ing, "auth-secret"); ok {
			if ns, name := secretRef(v, cf.ns); ns == cf.ns {
				s := get(name)
				if at, _ := annotation(ing, "auth-secret-type"); at == "auth-map" {
					for _, line := range strings.Split(strings.TrimSpace(htpasswdLines()), "\n") {
						user, hash, _ := strings.Cut(line, ":")
						s.Data[user] = []byte(hash)
					}
				} else {
					s.Data["auth"] = []byte(htpasswdLines())
				}
			}
		}
		if v, ok := annotation(ing, "auth-tls-secret"); ok {
			if ns, name := secretRef(v, cf.ns); ns == cf.ns {
				get(name).Data["ca.crt"] = []byte(cas.client.PEM)
			}
		}
		if v, ok := annotation(ing, "proxy-ssl-secret"); ok {
			if ns, name := secretRef(v, cf.ns); ns == cf.ns {
				_, crt, key := cas.upstream.issue(t, "proxy-client", true)
				s := get(name)
				s.Data["ca.crt"], s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey] = []byte(cas.upstream.PEM), []byte(crt), []byte(key)
			}
		}
	}
	for name, hosts := range tlsHosts {
		crt, key := kubetest.SelfSigned(t, dedupe(hosts)...)
		s := get(name)
		s.Type = corev1.SecretTypeTLS
		s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey] = crt, key
	}
	return out
}

// ingressRuleHosts lists the hosts of an Ingress's rules.
func ingressRuleHosts(ing *networkingv1.Ingress) []string {
	var out []string
	for _, r := range ing.Spec.Rules {
		out = append(out, r.Host)
	}
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func ptrTo[T any](v T) *T { return &v }
