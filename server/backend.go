package server

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// BackendList is the answer to GET /api/v1/backends.
type BackendList struct {
	Items []api.Backend `json:"items"`
	// Revision is the head revision the list was read at.
	Revision int64 `json:"revision" example:"42"`
}

// EndpointsRequest replaces a backend's endpoints, the hot path of deployments and
// autoscalers.
type EndpointsRequest struct {
	Endpoints []api.Endpoint `json:"endpoints"`
	// Message is the reason for the change.
	Message string `json:"message,omitempty" example:"scale out"`
}

// endpointRetries bounds how often putEndpoints retries when a concurrent write changed
// the same backend between its read and its write.
const endpointRetries = 5

func backendVersion(b *api.Backend) int64 { return b.Version }

// listBackends godoc
//
//	@Summary	List backends
//	@Tags		backends
//	@Produce	json
//	@Param		q	query		string	false	"only backends whose name contains this"
//	@Success	200	{object}	BackendList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends [get]
func (s *Server) listBackends(w http.ResponseWriter, r *http.Request) error {
	head := s.history.Head()
	writeJSON(w, http.StatusOK, BackendList{
		Items:    listObjects(head.Backends, r.URL.Query().Get("q"), same[api.Backend]),
		Revision: head.Revision,
	})
	return nil
}

// getBackend godoc
//
//	@Summary	Get a backend
//	@Tags		backends
//	@Produce	json
//	@Param		name	path		string	true	"backend name"
//	@Success	200		{object}	api.Backend
//	@Header		200		{string}	ETag	"the backend's version"
//	@Success	304
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends/{name} [get]
func (s *Server) getBackend(w http.ResponseWriter, r *http.Request) error {
	return getObject(w, r, s.history.Head().Backends, api.KindBackend, backendVersion, same[api.Backend])
}

// createBackend godoc
//
//	@Summary	Create a backend
//	@Description	Fails with 409 if a backend of that name exists.
//	@Tags		backends
//	@Accept		json
//	@Produce	json
//	@Param		backend			body		api.Backend	true	"the backend"
//	@Param		dryRun			query		bool		false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string		false	"reason for the change"
//	@Param		X-Change-Reason	header		string		false	"reason for the change"
//	@Success	201				{object}	api.WriteResult
//	@Success	200				{object}	api.WriteResult	"dry run"
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	409				{object}	ErrorResponse
//	@Failure	413				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends [post]
func (s *Server) createBackend(w http.ResponseWriter, r *http.Request) error {
	var b api.Backend
	if err := decode(w, r, &b, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "/api/v1/backends/", &b.Name, b.Source, api.Mutation{Kind: api.KindBackend, Backend: &b})
}

// putBackend godoc
//
//	@Summary	Create or replace a backend
//	@Tags		backends
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string		true	"backend name"
//	@Param		backend			body		api.Backend	true	"the backend; its name may be omitted"
//	@Param		If-Match		header		string		false	"the version (ETag) this write replaces"
//	@Param		dryRun			query		bool		false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string		false	"reason for the change"
//	@Param		X-Change-Reason	header		string		false	"reason for the change"
//	@Success	200				{object}	api.WriteResult
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	409				{object}	ErrorResponse
//	@Failure	412				{object}	ErrorResponse
//	@Failure	413				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends/{name} [put]
func (s *Server) putBackend(w http.ResponseWriter, r *http.Request) error {
	var b api.Backend
	if err := decode(w, r, &b, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "", &b.Name, b.Source, api.Mutation{Kind: api.KindBackend, Backend: &b})
}

// deleteBackend godoc
//
//	@Summary	Delete a backend
//	@Description	Fails with 409 while a location or a canary refers to it.
//	@Tags		backends
//	@Produce	json
//	@Param		name			path		string	true	"backend name"
//	@Param		If-Match		header		string	false	"the version (ETag) this delete expects"
//	@Param		dryRun			query		bool	false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string	false	"reason for the change"
//	@Param		X-Change-Reason	header		string	false	"reason for the change"
//	@Success	200				{object}	api.WriteResult
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	404				{object}	ErrorResponse
//	@Failure	409				{object}	ErrorResponse
//	@Failure	412				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends/{name} [delete]
func (s *Server) deleteBackend(w http.ResponseWriter, r *http.Request) error {
	return s.deleteObject(w, r, api.KindBackend)
}

// putEndpoints godoc
//
//	@Summary	Replace a backend's endpoints
//	@Description	The hot path: only the endpoints change, everything else about the backend is kept. Applied dynamically, without an nginx reload.
//	@Tags		backends
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string				true	"backend name"
//	@Param		endpoints		body		EndpointsRequest	true	"the new endpoints (an empty list drains the backend)"
//	@Param		If-Match		header		string				false	"the backend version (ETag) this write replaces"
//	@Param		dryRun			query		bool				false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		X-Change-Reason	header		string				false	"reason for the change"
//	@Success	200				{object}	api.WriteResult
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	404				{object}	ErrorResponse
//	@Failure	409				{object}	ErrorResponse
//	@Failure	412				{object}	ErrorResponse
//	@Failure	413				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/backends/{name}/endpoints [put]
func (s *Server) putEndpoints(w http.ResponseWriter, r *http.Request) error {
	var req EndpointsRequest
	if err := decode(w, r, &req, maxObjectBody); err != nil {
		return err
	}
	if req.Endpoints == nil {
		return api.Invalid("endpoints", "endpoints is required (an empty list drains the backend)")
	}
	meta, err := writeMeta(r, req.Message)
	if err != nil {
		return err
	}
	name := chi.URLParam(r, "name")
	return s.commit(w, r, write{
		op: opWrite, action: api.AuditWrite, target: api.KindBackend + "/" + name, meta: meta,
		do: func(ctx context.Context, meta api.Meta) (*api.WriteResult, error) {
			return s.writeEndpoints(ctx, meta, name, req.Endpoints)
		},
	})
}

// writeEndpoints writes the head's backend with new endpoints. The read and the write are
// two steps, so the write is conditional on the version read: a concurrent change to the
// same backend is never overwritten. Without a client If-Match the caller asked for "these
// endpoints, whatever else changed", so a lost race is retried on the fresh head.
func (s *Server) writeEndpoints(ctx context.Context, meta api.Meta, name string, eps []api.Endpoint) (*api.WriteResult, error) {
	clientMatch := meta.IfMatch
	for attempt := 1; ; attempt++ {
		cur, ok := s.history.Head().Backends[name]
		if !ok {
			return nil, api.Errorf(api.ENotFound, "backend %q does not exist", printable(name))
		}
		b := *cur
		b.Endpoints = append([]api.Endpoint(nil), eps...)
		if !clientMatch.Set {
			meta.IfMatch = api.IfVersion(cur.Version)
		}
		res, err := s.history.Write(ctx, meta, []api.Mutation{{Kind: api.KindBackend, Name: name, Backend: &b}})
		if clientMatch.Set || attempt == endpointRetries || api.ErrorCode(err) != api.EPreconditionFailed {
			return res, err
		}
	}
}
