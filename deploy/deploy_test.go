package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/restyplane/restyplane/deploy"
	"github.com/restyplane/restyplane/reconciler"
	"github.com/restyplane/restyplane/reconciler/kubetest"
	"github.com/restyplane/restyplane/store"
)

// objects reads every object of the manifests, in apply order.
func objects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range deploy.Files() {
		b, err := fs.ReadFile(deploy.Manifests(), f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var m map[string]any
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("parse %s: %v", f, err)
			}
			if m != nil {
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return out
}

// applier applies objects with server-side apply, as kubectl apply --server-side does.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(t *testing.T, cfg *rest.Config) *applier {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("dynamic client: %v", err)
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (a *applier) apply(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) error {
	gvk := obj.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	opts := metav1.ApplyOptions{FieldManager: "restyplane-deploy-test", Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = a.dyn.Resource(m.Resource).Namespace(obj.GetNamespace()).Apply(ctx, obj.GetName(), obj, opts)
	return err
}

// TestManifestsDryRun applies every manifest with a server-side dry run on a real API server.
// The namespace enforces the restricted Pod Security Standard, which the API server checks
// on the Deployments' pod templates and answers with warnings: there must be none.
func TestManifestsDryRun(t *testing.T) {
	c := kubetest.StartT(t)
	ctx := context.Background()
	cfg := rest.CopyConfig(c.Config)
	warnings := &warningLog{}
	cfg.WarningHandler = warnings
	a := newApplier(t, cfg)
	objs := objects(t)
	if got, want := len(objs) >= 13, true; got != want {
		t.Fatalf("manifests hold %d objects, want at least 13", len(objs))
	}
	// A dry run creates nothing, so the namespace that the others live in must exist.
	if err := a.apply(ctx, objs[0], false); err != nil {
		t.Fatalf("apply %s: %v", objs[0].GetName(), err)
	}
	for _, o := range objs {
		if err := a.apply(ctx, o, true); err != nil {
			t.Errorf("dry-run apply %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	if w := warnings.all(); len(w) > 0 {
		t.Errorf("the API server warned: %q", w)
	}
}

// warningLog keeps the API server's warnings.
type warningLog struct {
	mu   sync.Mutex
	msgs []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (l *warningLog) HandleWarningHeader(code int, agent, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, text)
}

func (l *warningLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// TestRBACIsEnough runs the reconciler as the manifests' ServiceAccount: with the RBAC
// applied and nothing more it must sync its informers, write, set status and record Events.
func TestRBACIsEnough(t *testing.T) {
	c := kubetest.StartT(t)
	ctx := context.Background()
	a := newApplier(t, c.Config)
	for _, o := range objects(t) {
		switch o.GetKind() {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "IngressClass":
			if err := a.apply(ctx, o, false); err != nil {
				t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "restyplane.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	defer st.Close()
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:restyplane:restyplane"}
	r, err := reconciler.New(st, reconciler.Options{Config: cfg, StatusAddress: "203.0.113.7", LeaseNamespace: "restyplane",
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("new reconciler: %v", err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() {
		cancel()
		<-done
	}()

	ns := c.Namespace(t, "shop")
	cert, key := kubetest.SelfSigned(t, "shop.example.com")
	ing := kubetest.Ingress(ns, "web", "restyplane", kubetest.Path{Host: "shop.example.com", Path: "/", Service: "web", Port: 80})
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}}
	c.Create(t, kubetest.Service(ns, "web", 80), kubetest.EndpointSlice(ns, "web", "web-1", 8080, kubetest.Ready("10.1.0.2")...),
		kubetest.TLSSecret(ns, "shop-tls", cert, key), ing)

	deadline := time.Now().Add(20 * time.Second)
	for {
		srv := st.Head().Servers["k8s.shop.example.com"]
		got, err := c.Client.NetworkingV1().Ingresses(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get ingress: %v", err)
		}
		applied := false
		for _, e := range c.Events(t, ns, "web") {
			applied = applied || e.Reason == reconciler.ReasonApplied
		}
		if srv != nil && srv.TLS != nil && len(got.Status.LoadBalancer.Ingress) == 1 && applied {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("as the ServiceAccount, after 20s: server %+v, status %+v, Applied event %t (a missing RBAC verb shows in the log above)",
				srv, got.Status.LoadBalancer, applied)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
