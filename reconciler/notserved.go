package reconciler

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/restyplane/restyplane/api"
)

// ReasonNotServed (Warning): an instance's nginx refused the server an Ingress routes by,
// so the apply left it out (its version that ran before keeps serving, or none does).
const ReasonNotServed = "NotServed"

// notServed tells Ingresses about the servers applies leave out. What it said last per
// instance and server is kept, so that an apply that leaves the same server out for the
// same reason (every apply does, until the server changes) says nothing new.
type notServed struct {
	once sync.Once
	out  *eventWriter
	mu   sync.Mutex
	said map[string]string // instance + server -> reason
}

// ReportApply posts a NotServed Warning Event on the Ingress (or route) behind each server that rec
// left out, with nginx's reason: restyplane's own checks cannot know everything nginx
// refuses, and the team that owns the Ingress must hear of it where it looks. It is safe
// to call from any goroutine, for the records of every instance.
func (r *Reconciler) ReportApply(rec api.ApplyRecord) {
	r.notServed.once.Do(func() {
		// Applies are reported whether this replica leads or not, for as long as it runs.
		r.notServed.out = r.newEventWriter()
		go r.notServed.out.run(context.Background())
		r.notServed.said = map[string]string{}
	})
	if p := r.gwReporter.Load(); p != nil && len(rec.Skipped) > 0 {
		p.poke() // a Gateway may make what rec left out
	}
	head := r.store.Head()
	for _, s := range rec.Skipped {
		srv := head.Servers[s.Name]
		if s.Kind != api.KindServer || srv == nil || srv.Source.Kind != api.SourceKubernetes || srv.Source.Name == "" {
			continue
		}
		if !r.notServed.first(rec.Instance+" "+s.Name, s.Reason) {
			continue
		}
		ref := &corev1.ObjectReference{Kind: "Ingress", APIVersion: "networking.k8s.io/v1",
			Namespace: srv.Source.Namespace, Name: srv.Source.Name, UID: types.UID(srv.Source.UID)}
		if srv.Source.Object != "" { // a Gateway API route's server
			ref.Kind, ref.APIVersion = srv.Source.Object, "gateway.networking.k8s.io/v1"
		}
		msg := fmt.Sprintf("instance %s left server %s (hosts %v) out of revision %d: nginx refused it: %s",
			rec.Instance, s.Name, slices.Clip(srv.Hostnames), rec.Revision, s.Reason)
		r.notServed.out.post(ref, 0, corev1.EventTypeWarning, ReasonNotServed, eventMessage(msg))
	}
}

// first reports whether reason is new for key, and remembers it.
func (n *notServed) first(key, reason string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.said[key] == reason {
		return false
	}
	n.said[key] = reason
	return true
}
