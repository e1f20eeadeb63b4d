package reconciler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// maxMessageObjects bounds how many cluster objects a revision message names.
const maxMessageObjects = 10

// message says which cluster objects a revision comes from, e.g. "from the cluster: Ingress
// shop/web (server k8s.shop.example.com created); Service shop/api (backend
// k8s.shop.api.80 updated)". A backend belongs to a Service, a server to the Ingress that
// routes its host first, a certificate to a Secret.
//
// An object a Gateway API route owns is named by the route, with the generation it was
// translated at: "HTTPRoute shop/web generation 3 (server k8s.shop.example.com updated)".
// generations holds the routes' generations by "Kind namespace/name".
func message(muts []api.Mutation, head *api.State, generations ...map[string]int64) string {
	byObject := map[string][]string{}
	for _, m := range muts {
		src, op := mutationSource(m, head)
		kind := clusterKind(m.Kind)
		if src.Object != "" {
			kind = src.Object
		}
		obj := fmt.Sprintf("%s %s/%s", kind, src.Namespace, src.Name)
		for _, g := range generations {
			if gen, ok := g[obj]; ok {
				obj += fmt.Sprintf(" generation %d", gen)
			}
		}
		byObject[obj] = append(byObject[obj], fmt.Sprintf("%s %s %s", m.Kind, m.Name, op))
	}
	objs := make([]string, 0, len(byObject))
	for o := range byObject {
		objs = append(objs, o)
	}
	sort.Strings(objs)
	var parts []string
	for i, o := range objs {
		if i == maxMessageObjects {
			parts = append(parts, fmt.Sprintf("and %d more cluster objects", len(objs)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", o, strings.Join(byObject[o], ", ")))
	}
	return "from the cluster: " + strings.Join(parts, "; ")
}

// mutationSource returns the cluster object behind a mutation and what it does.
func mutationSource(m api.Mutation, head *api.State) (api.Source, string) {
	_, cur, exists := head.Lookup(m.Ref())
	if !m.Delete {
		return m.Source(), op(exists)
	}
	return cur, "deleted"
}

func op(exists bool) string {
	if exists {
		return "updated"
	}
	return "created"
}

func clusterKind(kind string) string {
	switch kind {
	case api.KindBackend:
		return "Service"
	case api.KindServer:
		return "Ingress"
	case api.KindCertificate, api.KindHtpasswd, api.KindCACertificate:
		return "Secret"
	}
	return kind
}
