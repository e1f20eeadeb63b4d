package server

import (
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// CACertificateList is the answer to GET /api/v1/caCertificates.
type CACertificateList struct {
	Items []api.CACertificate `json:"items"`
	// Revision is the head revision the list was read at.
	Revision int64 `json:"revision" example:"42"`
}

func caCertificateVersion(c *api.CACertificate) int64 { return c.Version }

// caCertificateView returns a CA bundle as it is: it holds no secret.
func caCertificateView(c *api.CACertificate) api.CACertificate { return *c }

// listCACertificates godoc
//
//	@Summary	List CA certificate bundles
//	@Tags		caCertificates
//	@Produce	json
//	@Param		q	query		string	false	"only bundles whose name contains this"
//	@Success	200	{object}	CACertificateList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/caCertificates [get]
func (s *Server) listCACertificates(w http.ResponseWriter, r *http.Request) error {
	head := s.history.Head()
	writeJSON(w, http.StatusOK, CACertificateList{
		Items:    listObjects(head.CACertificates, r.URL.Query().Get("q"), caCertificateView),
		Revision: head.Revision,
	})
	return nil
}

// getCACertificate godoc
//
//	@Summary	Get a CA certificate bundle
//	@Tags		caCertificates
//	@Produce	json
//	@Param		name	path		string	true	"bundle name"
//	@Success	200		{object}	api.CACertificate
//	@Header		200		{string}	ETag	"the bundle's version"
//	@Success	304
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/caCertificates/{name} [get]
func (s *Server) getCACertificate(w http.ResponseWriter, r *http.Request) error {
	return getObject(w, r, s.history.Head().CACertificates, api.KindCACertificate, caCertificateVersion, caCertificateView)
}

// createCACertificate godoc
//
//	@Summary	Create a CA certificate bundle
//	@Description	cert holds PEM CERTIFICATE blocks, each a CA certificate (basicConstraints CA:TRUE), and nothing else: no private key. Fails with 409 if a bundle of that name exists.
//	@Tags		caCertificates
//	@Accept		json
//	@Produce	json
//	@Param		caCertificate	body		api.CACertificate	true	"the bundle"
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
//	@Router		/api/v1/caCertificates [post]
func (s *Server) createCACertificate(w http.ResponseWriter, r *http.Request) error {
	var v api.CACertificate
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "/api/v1/caCertificates/", &v.Name, v.Source, api.Mutation{Kind: api.KindCACertificate, CACertificate: &v})
}

// putCACertificate godoc
//
//	@Summary	Create or replace a CA certificate bundle
//	@Tags		caCertificates
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string		true	"bundle name"
//	@Param		caCertificate	body		api.CACertificate	true	"the bundle; its name may be omitted"
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
//	@Router		/api/v1/caCertificates/{name} [put]
func (s *Server) putCACertificate(w http.ResponseWriter, r *http.Request) error {
	var v api.CACertificate
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "", &v.Name, v.Source, api.Mutation{Kind: api.KindCACertificate, CACertificate: &v})
}

// deleteCACertificate godoc
//
//	@Summary	Delete a CA certificate bundle
//	@Description	Fails with 409 while a backend or server uses it.
//	@Tags		caCertificates
//	@Produce	json
//	@Param		name			path		string	true	"bundle name"
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
//	@Router		/api/v1/caCertificates/{name} [delete]
func (s *Server) deleteCACertificate(w http.ResponseWriter, r *http.Request) error {
	return s.deleteObject(w, r, api.KindCACertificate)
}
