package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/restyplane/restyplane/api"
)

// Write operations, the op label of the store write latency metric.
const (
	opWrite    = "write"
	opConfig   = "config"
	opRollback = "rollback"
)

// write describes one history write for commit.
type write struct {
	op     string // opWrite, opConfig or opRollback
	action string // the audit action
	target string // the audit target, e.g. "backend/shop-api"
	meta   api.Meta
	// created answers 201 with a Location header instead of 200 when a revision was made
	// (POST); location is that header's value.
	created  bool
	location string
	do       func(ctx context.Context, meta api.Meta) (*api.WriteResult, error)
}

// commit runs one history write and does what every write does around it: time it, ask the
// applier how a dry run would apply, make sure it is audited, and answer with the
// WriteResult. A write that makes a revision is audited by the store in the revision's own
// transaction; commit audits the writes that make none: failures and no-ops. Dry runs
// store nothing, so they leave no audit event either.
func (s *Server) commit(w http.ResponseWriter, r *http.Request, wr write) error {
	ctx := r.Context()
	wr.meta.Remote = remoteHost(r)
	start := time.Now()
	res, err := wr.do(ctx, wr.meta)
	if wr.meta.DryRun {
		if err != nil {
			return err
		}
		if s.applier != nil && res.Candidate != nil {
			mode, validation, err := s.applier.DryRun(ctx, res.Candidate)
			if err != nil {
				return fmt.Errorf("dry run of %s on the applier: %w", wr.target, err)
			}
			res.Mode, res.Validation = mode, validation
		}
		return writeResultJSON(w, http.StatusOK, res)
	}
	s.metrics.observeWrite(wr.op, start, err)
	if err != nil {
		s.audit(r, api.AuditEvent{Actor: wr.meta.Actor, Action: wr.action, Target: wr.target,
			Outcome: "failure", Detail: api.ErrorCode(err) + ": " + api.ErrorMessage(err)})
		return err
	}
	status := http.StatusOK
	switch {
	case res.Noop || res.Revision == nil:
		s.audit(r, api.AuditEvent{Actor: wr.meta.Actor, Action: wr.action, Target: wr.target,
			Outcome: "success", Detail: "no change: " + wr.meta.Message})
	case wr.created:
		w.Header().Set("Location", wr.location)
		status = http.StatusCreated
	}
	if res.Revision != nil {
		w.Header().Set("ETag", etag(res.Revision.ID))
		// The change goes live before the answer is written: the commit is durable, and
		// this goroutine runs already, where the applier's would first have to be woken
		// on cores that the proxy's traffic keeps busy.
		if s.applier != nil {
			s.applier.ApplyNow(ctx)
		}
	}
	return writeResultJSON(w, status, res)
}

// objectWrite is the write of one object (or its deletion); a location marks a create.
func (s *Server) objectWrite(w http.ResponseWriter, r *http.Request, meta api.Meta, mut api.Mutation, location string) error {
	return s.commit(w, r, write{
		op: opWrite, action: api.AuditWrite, target: mut.Kind + "/" + mut.Name,
		meta: meta, created: location != "", location: location,
		do: func(ctx context.Context, meta api.Meta) (*api.WriteResult, error) {
			return s.history.Write(ctx, meta, []api.Mutation{mut})
		},
	})
}

// bodyWrite is the write of one object from a POST or PUT body. A PUT names the object in
// its path, which the body's name must match or may leave out; a POST (no name in the
// path) creates, refusing a name that exists, and answers 201 with the new object's URL
// under base. Through the API only api-owned objects are written.
func (s *Server) bodyWrite(w http.ResponseWriter, r *http.Request, base string, name *string, src api.Source, mut api.Mutation) error {
	pathName := chi.URLParam(r, "name")
	if pathName != "" {
		if err := bodyName(pathName, name); err != nil {
			return err
		}
	}
	if err := apiOwned(src); err != nil {
		return err
	}
	meta, err := writeMeta(r, "")
	if err != nil {
		return err
	}
	mut.Name = *name
	location := ""
	if pathName == "" {
		meta.MustNotExist = true
		location = base + url.PathEscape(*name)
	}
	return s.objectWrite(w, r, meta, mut, location)
}

// bodyName reconciles the name in a PUT body with the one in its path: an empty body name
// takes the path's, a different one is refused rather than guessed at.
func bodyName(pathName string, name *string) error {
	if *name == "" {
		*name = pathName
		return nil
	}
	if *name != pathName {
		return api.Invalid("name", "name %q in the body differs from %q in the path", printable(*name), printable(pathName))
	}
	return nil
}

// apiOwned refuses a body that claims a Kubernetes owner: through the REST API only
// api-owned objects are written; the reconciler writes the others.
func apiOwned(src api.Source) error {
	if src.Kind == api.SourceKubernetes {
		return &api.Error{Code: api.EConflict, Field: "source", Message: "objects owned by Kubernetes are written by the reconciler; edit the Kubernetes object instead"}
	}
	return nil
}
