package reconciler

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
)

// Indexes on the informers' caches: the Ingresses that reference a Service or a Secret, and
// the EndpointSlices of a Service, each by "namespace/name".
const (
	byService = "service"
	bySecret  = "secret"
	// byAuthSecret indexes the Opaque Secrets of auth-secret (policies).
	byAuthSecret = "authsecret"
	// byCASecret indexes the Secrets, TLS or Opaque, whose ca.crt an annotation names.
	byCASecret = "casecret"
	// byConfigMap indexes the BackendTLSPolicies by the ConfigMaps of their CA certificates.
	byConfigMap = "configmap"
)

// cluster is the reconciler's view of the cluster: informers over the kinds it translates,
// whose handlers only enqueue the one sync key.
type cluster struct {
	informers []cache.SharedIndexInformer
	synced    []cache.InformerSynced
	wg        sync.WaitGroup

	classes   networkinglisters.IngressClassLister
	ingresses networkinglisters.IngressLister
	services  corelisters.ServiceLister
	secrets   corelisters.SecretLister
	// authSecrets lists Opaque Secrets, which basic auth's htpasswd comes in.
	authSecrets corelisters.SecretLister
	slices      cache.Indexer
	ingIndex    cache.Indexer
	// changes is what the handlers saw since a sync last took it.
	changes changes
	// controller is the IngressClass controller whose Ingresses the handlers watch for.
	controller string
	// gatewayController is the GatewayClass controllerName restyplane answers to.
	gatewayController string
	// defaultService is the "namespace/name" of the controller-wide default backend's
	// Service, "" without one: it counts whatever the Ingresses reference.
	defaultService string
	// gateway is the view of Gateway API's objects, nil until the cluster serves them.
	gateway atomic.Pointer[gatewayCluster]
	// heldServices are the Services of backends a hold may keep (setHeld).
	heldServices atomic.Pointer[map[string]bool]
	// expiry asks for the sync that lets go a certificate a hold keeps served, before it
	// expires (setHeld).
	expiry alarm
}

// gatewayReferences reports whether a Gateway API object references the key of index.
func (c *cluster) gatewayReferences(index, key string) bool {
	g := c.gateway.Load()
	return g != nil && g.references(index, key)
}

// newCluster sets up the informers; enqueue is called, and must not block, on every change
// that can alter the translation of controller's Ingresses or of the default backend d
// (nil without one).
func newCluster(client *clients, controller string, d *DefaultBackend, enqueue func()) (*cluster, error) {
	c := &cluster{controller: controller}
	if d != nil {
		c.defaultService = d.serviceKey()
	}
	all := metav1.NamespaceAll
	classInf := addInformer(c, &networkingv1.IngressClass{}, client.networking.IngressClasses(), "", nil)
	ingInf := addInformer(c, &networkingv1.Ingress{}, client.networking.Ingresses(all), "",
		cache.Indexers{byService: ingressServices, bySecret: ingressSecrets, byAuthSecret: ingressAuthSecrets, byCASecret: ingressCASecrets})
	svcInf := addInformer(c, &corev1.Service{}, client.core.Services(all), "", nil)
	sliceInf := addInformer(c, &discoveryv1.EndpointSlice{}, client.discovery.EndpointSlices(all), "",
		cache.Indexers{byService: sliceService})
	// Only TLS Secrets are watched: the reconciler has no business with the others.
	secretInf := addInformer(c, &corev1.Secret{}, client.core.Secrets(all), "type="+string(corev1.SecretTypeTLS), nil)
	// Policies: Opaque Secrets too, of which only those an Ingress's annotations
	// name, in its own namespace or one whose ReferenceGrant lets it, are ever read.
	authInf := addInformer(c, &corev1.Secret{}, client.core.Secrets(all), "type="+string(corev1.SecretTypeOpaque), nil)
	for _, inf := range c.informers {
		if err := inf.SetTransform(stripManagedFields); err != nil {
			return nil, fmt.Errorf("set transform: %w", err)
		}
	}
	c.classes = networkinglisters.NewIngressClassLister(classInf.GetIndexer())
	c.ingresses = networkinglisters.NewIngressLister(ingInf.GetIndexer())
	c.services = corelisters.NewServiceLister(svcInf.GetIndexer())
	c.secrets = corelisters.NewSecretLister(secretInf.GetIndexer())
	c.authSecrets = corelisters.NewSecretLister(authInf.GetIndexer())
	c.slices, c.ingIndex = sliceInf.GetIndexer(), ingInf.GetIndexer()

	c.changes.everything()
	c.expiry.fire = func() {
		c.changes.everything()
		enqueue()
	}
	always := func(any) {
		c.changes.everything()
		enqueue()
	}
	// Only the Ingresses of restyplane's classes and the Gateway API routes and Gateways,
	// and what they reference, count.
	referenced := func(index string, key func(any) string) func(any) {
		return func(obj any) {
			if refs, _ := c.ingIndex.ByIndex(index, key(obj)); c.ownsAny(refs...) || c.gatewayReferences(index, key(obj)) {
				c.changes.everything()
				enqueue()
			}
		}
	}
	// An EndpointSlice changes the endpoints of its Service's backends and nothing else,
	// which a sync can take without translating every Ingress and route again
	// (endpointsOnly).
	sliceChanged := func(obj any) {
		svc := sliceServiceKey(obj)
		if svc != "" && svc == c.defaultService {
			// The default backend is no Ingress's: endpointsOnly does not know it.
			c.changes.everything()
			enqueue()
			return
		}
		if refs, _ := c.ingIndex.ByIndex(byService, svc); c.ownsAny(refs...) || c.gatewayReferences(byService, svc) {
			c.changes.endpoints(svc)
			enqueue()
		} else if c.isHeldService(svc) {
			// No Ingress names it, so endpointsOnly does not know it either.
			c.changes.everything()
			enqueue()
		}
	}
	handlers := []struct {
		inf cache.SharedIndexInformer
		on  func(any)
		// changed filters updates, and keep additions and deletions; nil means all count.
		changed func(old, new any) bool
		keep    func(any) bool
	}{
		// Another controller's class changes no Ingress's owner (ownedClasses).
		{inf: classInf, on: always, keep: c.isOurClass,
			changed: func(old, new any) bool { return c.isOurClass(old) || c.isOurClass(new) }},
		// An Ingress that leaves restyplane's classes counts too: it must be taken out.
		{inf: ingInf, on: always, keep: func(obj any) bool { return c.ownsAny(obj) },
			changed: func(old, new any) bool { return ingressChanged(old, new) && c.ownsAny(old, new) }},
		{inf: svcInf, on: func(obj any) {
			if objectKey(obj) == c.defaultService {
				c.changes.everything()
				enqueue()
				return
			}
			referenced(byService, objectKey)(obj)
		}},
		{inf: sliceInf, on: sliceChanged},
		{inf: secretInf, on: referenced(bySecret, objectKey)},
		{inf: authInf, on: referenced(byAuthSecret, objectKey)},
		// A ca.crt may come in either type of Secret.
		{inf: secretInf, on: referenced(byCASecret, objectKey)},
		{inf: authInf, on: referenced(byCASecret, objectKey)},
	}
	for _, h := range handlers {
		on, changed, keep := h.on, h.changed, h.keep
		if keep == nil {
			keep = func(any) bool { return true }
		}
		_, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				if keep(obj) {
					on(obj)
				}
			},
			UpdateFunc: func(old, new any) {
				if changed == nil || changed(old, new) {
					on(new)
				}
			},
			DeleteFunc: func(obj any) {
				if obj = unwrap(obj); keep(obj) {
					on(obj)
				}
			},
		})
		if err != nil {
			return nil, fmt.Errorf("add event handler: %w", err)
		}
		c.synced = append(c.synced, h.inf.HasSynced)
	}
	return c, nil
}

// listWatcher is what an informer needs of a typed client, whose List returns the kind's
// list type L.
type listWatcher[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// addInformer adds to c an informer of obj's kind over what lw lists and watches, as
// client-go's informer factory builds it: no resync, the namespace index as well as
// indexers, and fieldSelector, when not empty, on every list and watch.
func addInformer[L runtime.Object](c *cluster, obj runtime.Object, lw listWatcher[L], fieldSelector string, indexers cache.Indexers) cache.SharedIndexInformer {
	inf := newInformer(obj, lw, fieldSelector, indexers)
	c.informers = append(c.informers, inf)
	return inf
}

// newInformer returns an informer of obj's kind as addInformer describes.
func newInformer[L runtime.Object](obj runtime.Object, lw listWatcher[L], fieldSelector string, indexers cache.Indexers) cache.SharedIndexInformer {
	tweak := func(o *metav1.ListOptions) {
		if fieldSelector != "" {
			o.FieldSelector = fieldSelector
		}
	}
	all := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	for name, f := range indexers {
		all[name] = f
	}
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			tweak(&o)
			return lw.List(context.TODO(), o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			tweak(&o)
			return lw.Watch(context.TODO(), o)
		},
	}, obj, 0, all)
	return inf
}

// start runs the informers until stop is closed.
func (c *cluster) start(stop <-chan struct{}) {
	for _, inf := range c.informers {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			inf.Run(stop)
		}()
	}
}

// shutdown waits for the informers' goroutines after stop was closed.
func (c *cluster) shutdown() {
	c.expiry.stop()
	c.wg.Wait()
}

// snapshot reads, from the caches, the Ingresses of the controller's classes and what they
// reference.
func (c *cluster) snapshot(controller string, cache *translationCache) (*Snapshot, error) {
	classes, err := c.classes.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list ingressclasses: %w", err)
	}
	owned := ownedClasses(classes, controller)
	ings, err := c.ingresses.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list ingresses: %w", err)
	}
	mine := ings[:0:0]
	for _, ing := range ings {
		if owned.owns(ing) {
			mine = append(mine, ing)
		}
	}
	snap, err := c.snapshotOf(mine, cache)
	if err != nil {
		return nil, err
	}
	if g := c.gateway.Load(); g != nil {
		if err := c.gatewaySnapshot(g, c.gatewayController, snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// snapshotOf reads, from the caches, what the Ingresses reference.
func (c *cluster) snapshotOf(ings []*networkingv1.Ingress, cache *translationCache) (*Snapshot, error) {
	snap := NewSnapshot()
	snap.cache = cache
	if c.defaultService != "" {
		if err := c.addService(snap, c.defaultService); err != nil {
			return nil, err
		}
	}
	for _, ing := range ings {
		snap.Ingresses = append(snap.Ingresses, ing)
		for _, key := range ingressServiceKeys(ing) {
			if err := c.addService(snap, key); err != nil {
				return nil, err
			}
		}
		for _, t := range ing.Spec.TLS {
			if t.SecretName == "" {
				continue
			}
			s, err := c.secrets.Secrets(ing.Namespace).Get(t.SecretName)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("get secret %s/%s: %w", ing.Namespace, t.SecretName, err)
			}
			if s != nil {
				snap.Secrets[ing.Namespace+"/"+t.SecretName] = s
			}
		}
		// Policies: the auth Secret, of the Ingress's namespace or one that grants it.
		for _, key := range authSecretKeys(ing) {
			ns, name, _ := strings.Cut(key, "/")
			if !c.secretGranted(ing, ns, name) {
				continue
			}
			s, err := c.authSecrets.Secrets(ns).Get(name)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("get secret %s: %w", key, err)
			}
			if s != nil {
				snap.Secrets[key] = s
			}
		}
		// The Secrets whose ca.crt an annotation names, TLS or Opaque, of its namespace.
		for _, key := range caSecretKeys(ing) {
			ns, name, _ := strings.Cut(key, "/")
			if !c.secretGranted(ing, ns, name) {
				continue
			}
			s, err := c.secrets.Secrets(ns).Get(name)
			if apierrors.IsNotFound(err) {
				s, err = c.authSecrets.Secrets(ns).Get(name)
			}
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("get secret %s: %w", key, err)
			}
			if s != nil {
				snap.Secrets[key] = s
			}
		}
	}
	return snap, nil
}

func (c *cluster) addService(snap *Snapshot, key string) error {
	if _, done := snap.Slices[key]; done {
		return nil
	}
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	svc, err := c.services.Services(ns).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("get service %s: %w", key, err)
	}
	if svc != nil {
		snap.Services[key] = svc
	}
	objs, err := c.slices.ByIndex(byService, key)
	if err != nil {
		return fmt.Errorf("endpointslices of %s: %w", key, err)
	}
	slices := make([]*discoveryv1.EndpointSlice, 0, len(objs))
	for _, o := range objs {
		slices = append(slices, o.(*discoveryv1.EndpointSlice))
	}
	snap.Slices[key] = slices
	return nil
}

// ingressChanged ignores updates that change only an Ingress's status, such as the ones the
// reconciler itself writes: they cannot change the translation.
func ingressChanged(old, new any) bool {
	o, ok1 := old.(*networkingv1.Ingress)
	n, ok2 := new.(*networkingv1.Ingress)
	return !ok1 || !ok2 || o.Generation != n.Generation || !reflect.DeepEqual(o.Annotations, n.Annotations) ||
		!reflect.DeepEqual(o.Spec, n.Spec)
}

// ingressServiceKeys lists the Services an Ingress routes to.
func ingressServiceKeys(ing *networkingv1.Ingress) []string {
	var keys []string
	add := func(b *networkingv1.IngressBackend) {
		if b != nil && b.Service != nil {
			keys = append(keys, ing.Namespace+"/"+b.Service.Name)
		}
	}
	add(ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for i := range r.HTTP.Paths {
			add(&r.HTTP.Paths[i].Backend)
		}
	}
	return append(keys, errorServiceKeys(ing)...) // policies
}

func ingressServices(obj any) ([]string, error) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return nil, nil
	}
	return ingressServiceKeys(ing), nil
}

func ingressSecrets(obj any) ([]string, error) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return nil, nil
	}
	var keys []string
	for _, t := range ing.Spec.TLS {
		keys = append(keys, ing.Namespace+"/"+t.SecretName)
	}
	return keys, nil
}

// ingressAuthSecrets indexes an Ingress by its auth Secret (policies).
func ingressAuthSecrets(obj any) ([]string, error) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return nil, nil
	}
	return authSecretKeys(ing), nil
}

// ingressCASecrets indexes an Ingress by the Secrets whose ca.crt it uses.
func ingressCASecrets(obj any) ([]string, error) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return nil, nil
	}
	return caSecretKeys(ing), nil
}

func sliceService(obj any) ([]string, error) {
	if k := sliceServiceKey(obj); k != "" {
		return []string{k}, nil
	}
	return nil, nil
}

// sliceServiceKey returns the key of the Service an EndpointSlice belongs to, from the
// label the EndpointSlice controller sets.
func sliceServiceKey(obj any) string {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || s.Labels[discoveryv1.LabelServiceName] == "" {
		return ""
	}
	return s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]
}

func objectKey(obj any) string {
	k, _ := cache.MetaNamespaceKeyFunc(obj)
	return k
}

// unwrap returns the last known object of a delete whose watch missed the final state.
func unwrap(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

// stripManagedFields drops the managed fields, which the reconciler never reads, before
// objects enter the caches: with thousands of objects they are much of the cache's memory.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
