package server

import (
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// HtpasswdList is the answer to GET /api/v1/htpasswds.
type HtpasswdList struct {
	Items []api.Htpasswd `json:"items"`
	// Revision is the head revision the list was read at.
	Revision int64 `json:"revision" example:"42"`
}

func htpasswdVersion(h *api.Htpasswd) int64 { return h.Version }

// redactedHtpasswd is the only view of an htpasswd that leaves the server: user names and
// fingerprint, never the hashes.
func redactedHtpasswd(h *api.Htpasswd) api.Htpasswd { return h.Redacted() }

// listHtpasswds godoc
//
//	@Summary	List htpasswd objects (users of basic auth), without their hashes
//	@Tags		htpasswds
//	@Produce	json
//	@Param		q	query		string	false	"only objects whose name contains this"
//	@Success	200	{object}	HtpasswdList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/htpasswds [get]
func (s *Server) listHtpasswds(w http.ResponseWriter, r *http.Request) error {
	head := s.history.Head()
	writeJSON(w, http.StatusOK, HtpasswdList{
		Items:    listObjects(head.Htpasswds, r.URL.Query().Get("q"), redactedHtpasswd),
		Revision: head.Revision,
	})
	return nil
}

// getHtpasswd godoc
//
//	@Summary	Get an htpasswd object: its user names and fingerprint, never its hashes
//	@Tags		htpasswds
//	@Produce	json
//	@Param		name	path		string	true	"htpasswd name"
//	@Success	200		{object}	api.Htpasswd
//	@Header		200		{string}	ETag	"the object's version"
//	@Success	304
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/htpasswds/{name} [get]
func (s *Server) getHtpasswd(w http.ResponseWriter, r *http.Request) error {
	return getObject(w, r, s.history.Head().Htpasswds, api.KindHtpasswd, htpasswdVersion, redactedHtpasswd)
}

// createHtpasswd godoc
//
//	@Summary	Create an htpasswd object
//	@Description	content holds user:hash lines; hashes are $apr1$, {SHA}, bcrypt $2y$/$2b$, $5$ or $6$. Fails with 409 if an object of that name exists.
//	@Tags		htpasswds
//	@Accept		json
//	@Produce	json
//	@Param		htpasswd		body		api.Htpasswd	true	"the object with its lines"
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
//	@Router		/api/v1/htpasswds [post]
func (s *Server) createHtpasswd(w http.ResponseWriter, r *http.Request) error {
	var v api.Htpasswd
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	if v.Content == "" {
		return api.Invalid("content", "a new htpasswd object needs its user:hash lines")
	}
	return s.bodyWrite(w, r, "/api/v1/htpasswds/", &v.Name, v.Source, api.Mutation{Kind: api.KindHtpasswd, Htpasswd: &v})
}

// putHtpasswd godoc
//
//	@Summary	Create or replace an htpasswd object
//	@Tags		htpasswds
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string		true	"htpasswd name"
//	@Param		htpasswd		body		api.Htpasswd	true	"the object; its name may be omitted, and its content too to keep the stored lines"
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
//	@Router		/api/v1/htpasswds/{name} [put]
func (s *Server) putHtpasswd(w http.ResponseWriter, r *http.Request) error {
	var v api.Htpasswd
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "", &v.Name, v.Source, api.Mutation{Kind: api.KindHtpasswd, Htpasswd: &v})
}

// deleteHtpasswd godoc
//
//	@Summary	Delete an htpasswd object
//	@Description	Fails with 409 while a location uses it.
//	@Tags		htpasswds
//	@Produce	json
//	@Param		name			path		string	true	"htpasswd name"
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
//	@Router		/api/v1/htpasswds/{name} [delete]
func (s *Server) deleteHtpasswd(w http.ResponseWriter, r *http.Request) error {
	return s.deleteObject(w, r, api.KindHtpasswd)
}
