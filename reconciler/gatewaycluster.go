package reconciler

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	gwlisters "sigs.k8s.io/gateway-api/pkg/client/listers/apis/v1"
	gwbetalisters "sigs.k8s.io/gateway-api/pkg/client/listers/apis/v1beta1"
)

// gatewayCluster is the reconciler's view of Gateway API's objects, in a cluster that
// serves them: informers over the classes, Gateways, routes and ReferenceGrants, and the
// Namespaces whose labels a listener's allowedRoutes may select. Like the cluster's, its
// handlers only enqueue the one sync key.
type gatewayCluster struct {
	informers []cache.SharedIndexInformer
	synced    []cache.InformerSynced
	wg        sync.WaitGroup
	// cancel stops the informers (start, stop).
	cancel context.CancelFunc

	classes    gwlisters.GatewayClassLister
	gateways   gwlisters.GatewayLister
	httpRoutes gwlisters.HTTPRouteLister
	// grpcRoutes and grants are nil in a cluster that does not serve them.
	grpcRoutes gwlisters.GRPCRouteLister
	grants     gwbetalisters.ReferenceGrantLister
	// tlsPolicies and configMaps are nil in a cluster that does not serve BackendTLSPolicy.
	tlsPolicies gwlisters.BackendTLSPolicyLister
	configMaps  corelisters.ConfigMapLister
	namespaces  corelisters.NamespaceLister
	// byService indexes the routes by the Services they route to; bySecret the Gateways
	// by their certificates' Secrets.
	routeIndexes []cache.Indexer
	gatewayIndex cache.Indexer
	// policyIndex indexes the BackendTLSPolicies by their ConfigMaps (byConfigMap).
	policyIndex cache.Indexer
	// retryMu guards retry, what HTTPRoute's CRD says of rules[].retry, whose document's
	// hash the schema poll (awaitRetryFlip) updates while syncs read it.
	retryMu sync.Mutex
	retry   retrySchema
}

// newGatewayCluster sets up the informers of what served says the cluster serves;
// enqueue is called on every change that can alter the translation, but for an update of
// a route's spec alone (its labels and annotations unchanged), which calls edited with the
// route's key ("Kind namespace/name").
func newGatewayCluster(client *clients, served gatewayKinds, enqueue func(), edited func(route string)) (*gatewayCluster, error) {
	g := &gatewayCluster{retry: served.retry}
	all := metav1.NamespaceAll
	v1 := client.gateway.GatewayV1()
	add := func(inf cache.SharedIndexInformer) cache.SharedIndexInformer {
		g.informers = append(g.informers, inf)
		return inf
	}
	classInf := add(newInformer(&gatewayv1.GatewayClass{}, v1.GatewayClasses(), "", nil))
	gwInf := add(newInformer(&gatewayv1.Gateway{}, v1.Gateways(all), "", cache.Indexers{bySecret: gatewaySecrets}))
	httpInf := add(newInformer(&gatewayv1.HTTPRoute{}, v1.HTTPRoutes(all), "", cache.Indexers{byService: routeServices}))
	nsInf := add(newInformer(&corev1.Namespace{}, client.core.Namespaces(), "", nil))
	g.classes = gwlisters.NewGatewayClassLister(classInf.GetIndexer())
	g.gateways = gwlisters.NewGatewayLister(gwInf.GetIndexer())
	g.httpRoutes = gwlisters.NewHTTPRouteLister(httpInf.GetIndexer())
	g.namespaces = corelisters.NewNamespaceLister(nsInf.GetIndexer())
	g.gatewayIndex = gwInf.GetIndexer()
	g.routeIndexes = []cache.Indexer{httpInf.GetIndexer()}
	specOnly := []cache.SharedIndexInformer{classInf, gwInf, httpInf}
	routeInfs := []cache.SharedIndexInformer{httpInf}
	if served.grpcRoutes {
		inf := add(newInformer(&gatewayv1.GRPCRoute{}, v1.GRPCRoutes(all), "", cache.Indexers{byService: routeServices}))
		g.grpcRoutes = gwlisters.NewGRPCRouteLister(inf.GetIndexer())
		g.routeIndexes = append(g.routeIndexes, inf.GetIndexer())
		specOnly = append(specOnly, inf)
		routeInfs = append(routeInfs, inf)
	}
	if served.grants {
		inf := add(newInformer(&gatewayv1beta1.ReferenceGrant{}, client.gateway.GatewayV1beta1().ReferenceGrants(all), "", nil))
		g.grants = gwbetalisters.NewReferenceGrantLister(inf.GetIndexer())
	}
	if served.backendTLS {
		inf := add(newInformer(&gatewayv1.BackendTLSPolicy{}, v1.BackendTLSPolicies(all), "", cache.Indexers{byConfigMap: policyConfigMaps}))
		g.tlsPolicies = gwlisters.NewBackendTLSPolicyLister(inf.GetIndexer())
		g.policyIndex = inf.GetIndexer()
		specOnly = append(specOnly, inf)
	}
	for _, inf := range g.informers {
		if err := inf.SetTransform(stripManagedFields); err != nil {
			return nil, fmt.Errorf("set transform: %w", err)
		}
		// The objects the reconciler writes the status of change only their status then,
		// which changes no translation: only a new generation (or labels) counts.
		changed := func(old, new any) bool { return true }
		for _, s := range specOnly {
			if s == inf {
				changed = specChanged
			}
		}
		if inf == nsInf {
			changed = labelsChanged
		}
		route := slices.Contains(routeInfs, inf)
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { enqueue() },
			UpdateFunc: func(old, new any) {
				switch {
				case route && onlySpecChanged(old, new):
					edited(routeKey(new))
				case changed(old, new):
					enqueue()
				}
			},
			DeleteFunc: func(any) { enqueue() },
		})
		if err != nil {
			return nil, fmt.Errorf("add event handler: %w", err)
		}
		g.synced = append(g.synced, inf.HasSynced)
	}
	if served.backendTLS {
		if err := g.watchConfigMaps(client, enqueue); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// watchConfigMaps watches the ConfigMaps, of which only those a BackendTLSPolicy names
// for its CA certificates count: a change of any other enqueues nothing.
func (g *gatewayCluster) watchConfigMaps(client *clients, enqueue func()) error {
	inf := newInformer(&corev1.ConfigMap{}, client.core.ConfigMaps(metav1.NamespaceAll), "", nil)
	if err := inf.SetTransform(stripManagedFields); err != nil {
		return fmt.Errorf("set transform: %w", err)
	}
	named := func(obj any) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return
		}
		if refs, err := g.policyIndex.ByIndex(byConfigMap, key); err == nil && len(refs) > 0 {
			enqueue()
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: named,
		UpdateFunc: func(_, new any) { named(new) }, DeleteFunc: named}); err != nil {
		return fmt.Errorf("add event handler: %w", err)
	}
	g.configMaps = corelisters.NewConfigMapLister(inf.GetIndexer())
	g.informers = append(g.informers, inf)
	g.synced = append(g.synced, inf.HasSynced)
	return nil
}

// start runs the informers until ctx ends or stop is called.
func (g *gatewayCluster) start(ctx context.Context) {
	ctx, g.cancel = context.WithCancel(ctx)
	for _, inf := range g.informers {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			inf.Run(ctx.Done())
		}()
	}
}

// stop stops the informers of a started view and waits for them.
func (g *gatewayCluster) stop() {
	g.cancel()
	g.wg.Wait()
}

// references reports whether a route routes to the Service key ("namespace/name") or a
// Gateway presents a certificate of the Secret key, as index (byService, bySecret) asks.
func (g *gatewayCluster) references(index, key string) bool {
	indexers := g.routeIndexes
	if index == bySecret {
		indexers = []cache.Indexer{g.gatewayIndex}
	}
	for _, ix := range indexers {
		if refs, err := ix.ByIndex(index, key); err == nil && len(refs) > 0 {
			return true
		}
	}
	return false
}

// specChanged ignores updates of an object's status (its generation stays) that leave its
// labels and annotations as they were.
func specChanged(old, new any) bool {
	o, ok1 := old.(metav1.Object)
	n, ok2 := new.(metav1.Object)
	return !ok1 || !ok2 || o.GetGeneration() != n.GetGeneration() ||
		!reflect.DeepEqual(o.GetLabels(), n.GetLabels()) || !reflect.DeepEqual(o.GetAnnotations(), n.GetAnnotations())
}

// onlySpecChanged reports an update of an object's spec (a new generation) that leaves its
// labels and annotations as they were.
func onlySpecChanged(old, new any) bool {
	o, ok1 := old.(metav1.Object)
	n, ok2 := new.(metav1.Object)
	return ok1 && ok2 && o.GetGeneration() != n.GetGeneration() &&
		reflect.DeepEqual(o.GetLabels(), n.GetLabels()) && reflect.DeepEqual(o.GetAnnotations(), n.GetAnnotations())
}

// labelsChanged counts a Namespace's update only when its labels change, which is all a
// listener's namespace selector reads.
func labelsChanged(old, new any) bool {
	o, ok1 := old.(metav1.Object)
	n, ok2 := new.(metav1.Object)
	return !ok1 || !ok2 || !reflect.DeepEqual(o.GetLabels(), n.GetLabels())
}
