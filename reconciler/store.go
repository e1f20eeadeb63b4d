package reconciler

import (
	"context"

	"github.com/restyplane/restyplane/api"
)

// Store is what the reconciler needs from the history: the head to compare the cluster
// with, and a write that makes one revision of the kubernetes-owned objects that changed.
type Store interface {
	// Head returns the desired state at the head of the history; it is never modified.
	Head() *api.State
	// Write stores the mutations as one revision, or none when they change nothing.
	Write(ctx context.Context, meta api.Meta, muts []api.Mutation) (*api.WriteResult, error)
	// Claims hold hostnames for namespaces.
	Claims
	// Holds keep what rollbacks took back from the cluster.
	Holds
}
