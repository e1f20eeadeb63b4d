package reconciler

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// summary is a translation in a form that a table can spell out.
type summary struct {
	Backends map[string]string   // name -> "endpoints balancing [canary]"
	Servers  map[string][]string // name -> hosts and TLS, then "match path -> backend" per location
	Certs    []string
	Reports  map[string]string // Ingress -> "applied" or "not applied", then the reasons
}

func summarize(tr *Translation) summary {
	s := summary{Backends: map[string]string{}, Servers: map[string][]string{}, Reports: map[string]string{}}
	for n, b := range tr.Backends {
		var eps []string
		for _, e := range b.Endpoints {
			eps = append(eps, fmt.Sprintf("%s:%d", e.Address, e.Port))
		}
		v := strings.Join(eps, ",") + " " + balancing(b)
		if c := b.Canary; c != nil {
			v += fmt.Sprintf(" canary %s %d%% %s=%s cookie %s", c.Backend, c.Weight, c.Header, c.HeaderValue, c.Cookie)
		}
		s.Backends[n] = v
	}
	for n, srv := range tr.Servers {
		head := strings.Join(srv.Hostnames, ",")
		if srv.TLS != nil {
			head += fmt.Sprintf(" tls %s redirect %t", srv.TLS.Certificate, srv.TLS.Redirect)
		}
		head += " from " + srv.Source.Namespace + "/" + srv.Source.Name
		lines := []string{head}
		for _, l := range srv.Locations {
			line := fmt.Sprintf("%s %s -> %s", l.Match, l.Path, l.Backend)
			if l.Return != nil {
				line = fmt.Sprintf("%s %s -> return %d", l.Match, l.Path, l.Return.Code)
			}
			if l.Rewrite != "" {
				line += " rewrite " + l.Rewrite
			}
			if l.Timeouts != nil {
				line += fmt.Sprintf(" timeouts %s/%s/%s", l.Timeouts.Connect, l.Timeouts.Send, l.Timeouts.Read)
			}
			lines = append(lines, line)
		}
		s.Servers[n] = lines
	}
	for n := range tr.Certificates {
		s.Certs = append(s.Certs, n)
	}
	sort.Strings(s.Certs)
	for k, r := range tr.Reports {
		v := "not applied"
		if r.Applied {
			v = "applied"
		}
		for _, p := range r.Problems {
			v += " " + p.Reason
		}
		s.Reports[k] = v
	}
	return s
}

// snapshotOf sorts cluster objects into a snapshot, as the informers' caches would.
func snapshotOf(objs ...runtime.Object) *Snapshot {
	s := NewSnapshot()
	for _, o := range objs {
		switch o := o.(type) {
		case *networkingv1.Ingress:
			s.Ingresses = append(s.Ingresses, o)
		case *corev1.Service:
			s.Services[o.Namespace+"/"+o.Name] = o
		case *discoveryv1.EndpointSlice:
			k := o.Namespace + "/" + o.Labels[discoveryv1.LabelServiceName]
			s.Slices[k] = append(s.Slices[k], o)
		case *corev1.Secret:
			s.Secrets[o.Namespace+"/"+o.Name] = o
		}
	}
	return s
}

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// aged gives an Ingress a creation time minutes after epoch, and annotations as pairs.
func aged(ing *networkingv1.Ingress, minutes int, kv ...string) *networkingv1.Ingress {
	ing.CreationTimestamp = metav1.NewTime(epoch.Add(time.Duration(minutes) * time.Minute))
	ing.Generation = 1
	for i := 0; i+1 < len(kv); i += 2 {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations[kv[i]] = kv[i+1]
	}
	return ing
}

func withDefaultBackend(ing *networkingv1.Ingress, svc string, port int32) *networkingv1.Ingress {
	b := kubetest.ServiceBackend(svc, port)
	ing.Spec.DefaultBackend = &b
	return ing
}

func withTLS(ing *networkingv1.Ingress, secret string, hosts ...string) *networkingv1.Ingress {
	ing.Spec.TLS = append(ing.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts, SecretName: secret})
	return ing
}

func restServer(name, host, path string) *api.State {
	st := api.NewState()
	st.Backends["rest-pool"] = &api.Backend{Name: "rest-pool", Source: api.Source{Kind: api.SourceAPI}}
	st.Servers[name] = &api.Server{Name: name, Hostnames: []string{host}, Source: api.Source{Kind: api.SourceAPI},
		Locations: []api.Location{{Path: path, Match: api.MatchPrefix, Backend: "rest-pool"}}}
	return st
}

func TestTranslate(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	exact, implSpecific := networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific
	web := kubetest.Service(ns, "web", 80)
	webSlice := kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Endpoint{Address: "10.0.0.2"},
		kubetest.Endpoint{Address: "10.0.0.1"}, kubetest.Endpoint{Address: "10.0.0.3", NotReady: true})
	webSlice2 := kubetest.EndpointSlice(ns, "web", "web-2", 8080, kubetest.Ready("10.0.0.4", "10.0.0.1")...)
	apiSvc := kubetest.Service(ns, "api", 8000)
	apiSlice := kubetest.EndpointSlice(ns, "api", "api-1", 9000, kubetest.Ready("10.0.1.1")...)
	cert, key := kubetest.SelfSigned(t, host, "other.example.com")
	secret := kubetest.TLSSecret(ns, "shop-tls", cert, key)
	root := func(svc string, port int32) kubetest.Path {
		return kubetest.Path{Host: host, Path: "/", Service: svc, Port: port}
	}
	const ng = nginxPrefix

	for _, tc := range []struct {
		name string
		objs []runtime.Object
		head *api.State
		want summary
	}{{
		name: "one Ingress: ready endpoints of every slice, once each",
		objs: []runtime.Object{web, webSlice, webSlice2, aged(kubetest.Ingress(ns, "web", "c", root("web", 80)), 0)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080,10.0.0.4:8080 round_robin"},
			Servers:  map[string][]string{"k8s.shop.example.com": {host + " from shop/web", "prefix / -> k8s.shop.web.80"}},
			Reports:  map[string]string{"shop/web": "applied"},
		},
	}, {
		name: "path types, two Service ports, hosts and the catch-all",
		objs: []runtime.Object{web, webSlice, apiSvc, apiSlice, aged(kubetest.Ingress(ns, "web", "c",
			root("web", 80),
			kubetest.Path{Host: host, Path: "/api", Service: "api", Port: 8000},
			kubetest.Path{Host: host, Path: "/health", Type: exact, Service: "api", Port: 8000},
			kubetest.Path{Host: "*.example.com", Path: "/legacy", Type: implSpecific, Service: "web", Port: 80},
			kubetest.Path{Host: "", Path: "/", Service: "web", Port: 80}), 0)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin", "k8s.shop.api.8000": "10.0.1.1:9000 round_robin"},
			Servers: map[string][]string{
				"k8s.shop.example.com": {host + " from shop/web", "prefix / -> k8s.shop.web.80", "prefix /api -> k8s.shop.api.8000", "exact /health -> k8s.shop.api.8000"},
				"k8s._.example.com":    {"*.example.com from shop/web", "prefix /legacy -> k8s.shop.web.80"},
				"k8s._default":         {"_ from shop/web", "prefix / -> k8s.shop.web.80"},
			},
			Reports: map[string]string{"shop/web": "applied"},
		},
	}, {
		name: "two Ingresses claim one host and path: the older keeps it, the younger's other paths apply",
		objs: []runtime.Object{web, webSlice, apiSvc, apiSlice,
			aged(kubetest.Ingress(ns, "young", "c", root("api", 8000), kubetest.Path{Host: host, Path: "/api/", Service: "api", Port: 8000}), 5),
			aged(kubetest.Ingress(ns, "old", "c", root("web", 80)), 1)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin", "k8s.shop.api.8000": "10.0.1.1:9000 round_robin"},
			Servers:  map[string][]string{"k8s.shop.example.com": {host + " from shop/old", "prefix / -> k8s.shop.web.80", "prefix /api/ -> k8s.shop.api.8000"}},
			Reports:  map[string]string{"shop/old": "applied", "shop/young": "applied Conflict"},
		},
	}, {
		name: "equal age: namespace/name decides",
		objs: []runtime.Object{web, webSlice, apiSvc, apiSlice,
			aged(kubetest.Ingress(ns, "b", "c", root("api", 8000)), 0), aged(kubetest.Ingress(ns, "a", "c", root("web", 80)), 0)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin"},
			Servers:  map[string][]string{"k8s.shop.example.com": {host + " from shop/a", "prefix / -> k8s.shop.web.80"}},
			Reports:  map[string]string{"shop/a": "applied", "shop/b": "not applied Conflict"},
		},
	}, {
		// A REST server's hostname is the REST API's: an Ingress naming it is refused whole
		// (REST and Kubernetes servers never share a hostname).
		name: "a REST server's hostname is not shared with an Ingress",
		objs: []runtime.Object{web, webSlice, aged(kubetest.Ingress(ns, "web", "c", root("web", 80), kubetest.Path{Host: host, Path: "/web", Service: "web", Port: 80}), 0)},
		head: restServer("rest-shop", host, "/"),
		want: summary{
			Backends: map[string]string{},
			Servers:  map[string][]string{},
			Reports:  map[string]string{"shop/web": "not applied HostClaimed"},
		},
	}, {
		name: "default backend: root of the Ingress's hosts unless a path claims it, catch-all without rules",
		objs: []runtime.Object{web, webSlice, apiSvc, apiSlice,
			aged(withDefaultBackend(kubetest.Ingress(ns, "web", "c", kubetest.Path{Host: host, Path: "/app", Service: "web", Port: 80},
				kubetest.Path{Host: "other.example.com", Path: "/", Service: "web", Port: 80}), "api", 8000), 0),
			aged(withDefaultBackend(kubetest.Ingress(ns, "fallback", "c"), "api", 8000), 1)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin", "k8s.shop.api.8000": "10.0.1.1:9000 round_robin"},
			Servers: map[string][]string{
				"k8s.shop.example.com":  {host + " from shop/web", "prefix / -> k8s.shop.api.8000", "prefix /app -> k8s.shop.web.80"},
				"k8s.other.example.com": {"other.example.com from shop/web", "prefix / -> k8s.shop.web.80"},
				"k8s._default":          {"_ from shop/fallback", "prefix / -> k8s.shop.api.8000"},
			},
			Reports: map[string]string{"shop/web": "applied", "shop/fallback": "applied"},
		},
	}, {
		name: "TLS from a Secret redirects by default; ssl-redirect false turns it off",
		objs: []runtime.Object{web, webSlice, secret,
			aged(withTLS(kubetest.Ingress(ns, "web", "c", root("web", 80)), "shop-tls", host), 0),
			aged(withTLS(kubetest.Ingress(ns, "plain", "c", kubetest.Path{Host: "other.example.com", Path: "/", Service: "web", Port: 80}), "shop-tls"), 1, ng+"ssl-redirect", "false")},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin"},
			Servers: map[string][]string{
				"k8s.shop.example.com":  {host + " tls k8s.shop.shop-tls redirect true from shop/web", "prefix / -> k8s.shop.web.80"},
				"k8s.other.example.com": {"other.example.com tls k8s.shop.shop-tls redirect false from shop/plain", "prefix / -> k8s.shop.web.80"},
			},
			Certs:   []string{"k8s.shop.shop-tls"},
			Reports: map[string]string{"shop/web": "applied", "shop/plain": "applied"},
		},
	}, {
		name: "a missing TLS Secret, a snippet and a bad annotation skip their Ingresses only, whose paths answer 503",
		objs: []runtime.Object{web, webSlice,
			aged(kubetest.Ingress(ns, "web", "c", root("web", 80)), 0),
			aged(withTLS(kubetest.Ingress(ns, "notls", "c", kubetest.Path{Host: "a.example.com", Path: "/", Service: "web", Port: 80}), "missing", "a.example.com"), 1),
			aged(kubetest.Ingress(ns, "snippet", "c", kubetest.Path{Host: "b.example.com", Path: "/", Service: "web", Port: 80}), 2, ng+"configuration-snippet", "lua_need_request_body on;"),
			aged(kubetest.Ingress(ns, "bad", "c", kubetest.Path{Host: "c.example.com", Path: "/", Service: "web", Port: 80}), 3, ng+"proxy-read-timeout", "forever"),
			aged(kubetest.Ingress(ns, "noport", "c", kubetest.Path{Host: "d.example.com", Path: "/", Service: "web", Port: 81}), 4)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin"},
			Servers: map[string][]string{"k8s.shop.example.com": {host + " from shop/web", "prefix / -> k8s.shop.web.80"},
				"k8s.a.example.com": {"a.example.com from shop/notls", "prefix / -> return 503"},
				"k8s.b.example.com": {"b.example.com from shop/snippet", "prefix / -> return 503"},
				"k8s.c.example.com": {"c.example.com from shop/bad", "prefix / -> return 503"},
				"k8s.d.example.com": {"d.example.com from shop/noport", "prefix / -> return 503"}},
			Reports: map[string]string{"shop/web": "applied", "shop/notls": "not applied Skipped", "shop/snippet": "not applied RefusedSnippet",
				"shop/bad": "not applied Skipped", "shop/noport": "not applied Skipped"},
		},
	}, {
		name: "a missing Service gives an empty backend and a warning",
		objs: []runtime.Object{aged(kubetest.Ingress(ns, "web", "c", root("web", 80)), 0)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": " round_robin"},
			Servers:  map[string][]string{"k8s.shop.example.com": {host + " from shop/web", "prefix / -> k8s.shop.web.80"}},
			Reports:  map[string]string{"shop/web": "applied Degraded"},
		},
	}, {
		name: "annotations: balancing on the backend, rewrite and timeouts on the locations",
		objs: []runtime.Object{web, webSlice, aged(kubetest.Ingress(ns, "web", "c", root("web", 80)), 0,
			ng+"upstream-hash-by", "$request_uri", ng+"affinity", "cookie", ng+"rewrite-target", "/", ng+"proxy-read-timeout", "90")},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 chash by $request_uri, affinity cookie INGRESSCOOKIE (balanced, path /)"},
			Servers:  map[string][]string{"k8s.shop.example.com": {host + " from shop/web", "prefix / -> k8s.shop.web.80 rewrite / timeouts //90s"}},
			Reports:  map[string]string{"shop/web": "applied"},
		},
	}, {
		name: "a shared backend is balanced as the oldest Ingress says",
		objs: []runtime.Object{web, webSlice,
			aged(kubetest.Ingress(ns, "old", "c", root("web", 80)), 0, ng+"load-balance", "ewma"),
			aged(kubetest.Ingress(ns, "young", "c", kubetest.Path{Host: "b.example.com", Path: "/", Service: "web", Port: 80}), 1)},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 ewma"},
			Servers: map[string][]string{"k8s.shop.example.com": {host + " from shop/old", "prefix / -> k8s.shop.web.80"},
				"k8s.b.example.com": {"b.example.com from shop/young", "prefix / -> k8s.shop.web.80"}},
			Reports: map[string]string{"shop/old": "applied", "shop/young": "applied Conflict"},
		},
	}, {
		name: "a canary Ingress splits its main Ingress's backend",
		objs: []runtime.Object{web, webSlice, apiSvc, apiSlice,
			aged(kubetest.Ingress(ns, "main", "c", root("web", 80)), 0),
			aged(kubetest.Ingress(ns, "canary", "c", root("api", 8000)), 1, ng+"canary", "true", ng+"canary-weight", "10", ng+"canary-by-header", "X-Canary"),
			aged(kubetest.Ingress(ns, "orphan", "c", kubetest.Path{Host: "none.example.com", Path: "/", Service: "api", Port: 8000}), 2, ng+"canary", "true", ng+"canary-weight", "10")},
		want: summary{
			Backends: map[string]string{"k8s.shop.web.80": "10.0.0.1:8080,10.0.0.2:8080 round_robin canary k8s.shop.api.8000 10% X-Canary= cookie ",
				"k8s.shop.api.8000": "10.0.1.1:9000 round_robin"},
			Servers: map[string][]string{"k8s.shop.example.com": {host + " from shop/main", "prefix / -> k8s.shop.web.80"}},
			Reports: map[string]string{"shop/main": "applied", "shop/canary": "applied", "shop/orphan": "not applied Conflict"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			head := tc.head
			if head == nil {
				head = api.NewState()
			}
			got := summarize(Translate(snapshotOf(tc.objs...), head))
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") })); diff != "" {
				t.Fatalf("translation (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTranslateIsValid writes a translation into a state with the REST objects and checks
// it as the store would: every object valid, every reference resolved, no claim twice.
func TestTranslateIsValid(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	cert, key := kubetest.SelfSigned(t, host)
	objs := []runtime.Object{kubetest.Service(ns, "web", 80), kubetest.EndpointSlice(ns, "web", "w", 8080, kubetest.Ready("10.0.0.1")...),
		kubetest.Service(ns, "api", 80), kubetest.TLSSecret(ns, "tls", cert, key),
		aged(withTLS(kubetest.Ingress(ns, "a", "c", kubetest.Path{Host: host, Path: "/", Service: "web", Port: 80}), "tls", host), 0),
		aged(kubetest.Ingress(ns, "b", "c", kubetest.Path{Host: host, Path: "/", Service: "api", Port: 80}), 1),
		aged(kubetest.Ingress(ns, "c", "c", kubetest.Path{Host: host, Path: "/", Service: "api", Port: 80}), 2, nginxPrefix+"canary", "true", nginxPrefix+"canary-weight", "50")}
	head := restServer("rest-shop", host, "/rest")
	storeAccepts(t, Translate(snapshotOf(objs...), head), head)
}
