package server

import (
	"context"
	"math"
	"net/http"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// RevisionList is the answer to GET /api/v1/revisions, newest first.
type RevisionList struct {
	Items []api.Revision `json:"items"`
	// Head is the newest revision.
	Head int64 `json:"head" example:"42"`
}

// RollbackRequest is the body of POST /api/v1/revisions/{id}/rollback.
type RollbackRequest struct {
	// Message is the reason for the rollback; it is required (here, in ?message= or in
	// X-Change-Reason).
	Message string `json:"message" example:"checkout errors after the pool move"`
}

// listRevisions godoc
//
//	@Summary	List revisions, newest first
//	@Description	Without their changes; page backwards with before = the last id seen.
//	@Tags		revisions
//	@Produce	json
//	@Param		before	query		int	false	"only revisions with a smaller id"
//	@Param		limit	query		int	false	"at most this many (1-1000, default 50)"
//	@Success	200		{object}	RevisionList
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/revisions [get]
func (s *Server) listRevisions(w http.ResponseWriter, r *http.Request) error {
	before, err := queryInt(r, "before", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 50, 1, 1000)
	if err != nil {
		return err
	}
	head := s.history.Head().Revision
	items, err := s.history.Revisions(r.Context(), before, int(limit))
	if err != nil {
		return err
	}
	if items == nil {
		items = []api.Revision{}
	}
	writeJSON(w, http.StatusOK, RevisionList{Items: items, Head: head})
	return nil
}

// getRevision godoc
//
//	@Summary	Get a revision with its changes
//	@Description	Certificate bodies in the changes never hold keys.
//	@Tags		revisions
//	@Produce	json
//	@Param		id	path		int	true	"revision id"
//	@Success	200	{object}	api.Revision
//	@Failure	400	{object}	ErrorResponse
//	@Failure	401	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Failure	410	{object}	ErrorResponse	"the revision was pruned by the retention policy"
//	@Security	BearerAuth
//	@Router		/api/v1/revisions/{id} [get]
func (s *Server) getRevision(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	rev, err := s.history.Revision(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rev)
	return nil
}

// diffRevision godoc
//
//	@Summary	Diff two revisions
//	@Description	What changed from revision "against" (default: id-1) to revision id, object by object.
//	@Tags		revisions
//	@Produce	json
//	@Param		id		path		int	true	"the later revision"
//	@Param		against	query		int	false	"the earlier revision (default id-1; 0 is the empty history)"
//	@Success	200		{object}	api.Diff
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Failure	410		{object}	ErrorResponse	"the revision was pruned by the retention policy"
//	@Security	BearerAuth
//	@Router		/api/v1/revisions/{id}/diff [get]
func (s *Server) diffRevision(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	against, err := queryInt(r, "against", id-1, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	d, err := s.history.Diff(r.Context(), against, id)
	if err != nil {
		return err
	}
	shell := d
	shell.Entries = []api.DiffEntry{}
	return writeDiffJSON(w, http.StatusOK, shell, d.Entries)
}

// rollback godoc
//
//	@Summary	Roll back to a revision
//	@Description	Writes a new revision whose state equals revision id's; history is never rewritten. A reason is required.
//	@Tags		revisions
//	@Accept		json
//	@Produce	json
//	@Param		id				path		int				true	"the revision to restore"
//	@Param		request			body		RollbackRequest	false	"the reason"
//	@Param		If-Match		header		string			false	"the head revision this rollback expects"
//	@Param		dryRun			query		bool			false	"return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string			false	"reason for the rollback"
//	@Param		X-Change-Reason	header		string			false	"reason for the rollback"
//	@Success	200				{object}	api.WriteResult
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	404				{object}	ErrorResponse
//	@Failure	410				{object}	ErrorResponse	"the revision was pruned by the retention policy"
//	@Failure	412				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/revisions/{id}/rollback [post]
func (s *Server) rollback(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	var req RollbackRequest
	if r.ContentLength != 0 || r.Header.Get("Content-Type") != "" {
		if err := decode(w, r, &req, maxObjectBody); err != nil {
			return err
		}
	}
	meta, err := writeMeta(r, req.Message)
	if err != nil {
		return err
	}
	if meta.Message == "" {
		return api.Invalid("message", "a rollback needs a reason: a message in the body, ?message= or X-Change-Reason")
	}
	// A rollback may restore other settings; only an admin may change them (dry runs too).
	meta.NoSettings = api.RoleRank(tokenFrom(r.Context()).Role) < api.RoleRank(api.RoleAdmin)
	return s.commit(w, r, write{
		op: opRollback, action: api.AuditRollback, target: "revision/" + strconv.FormatInt(id, 10), meta: meta,
		do: func(ctx context.Context, meta api.Meta) (*api.WriteResult, error) {
			return s.history.Rollback(ctx, meta, id)
		},
	})
}
