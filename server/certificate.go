package server

import (
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// CertificateList is the answer to GET /api/v1/certificates.
type CertificateList struct {
	Items []api.Certificate `json:"items"`
	// Revision is the head revision the list was read at.
	Revision int64 `json:"revision" example:"42"`
}

func certificateVersion(c *api.Certificate) int64 { return c.Version }

// redacted is the only view of a certificate that leaves the server: without its key.
func redacted(c *api.Certificate) api.Certificate { return c.Redacted() }

// listCertificates godoc
//
//	@Summary	List certificates
//	@Tags		certificates
//	@Produce	json
//	@Param		q	query		string	false	"only certificates whose name contains this"
//	@Success	200	{object}	CertificateList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/certificates [get]
func (s *Server) listCertificates(w http.ResponseWriter, r *http.Request) error {
	head := s.history.Head()
	writeJSON(w, http.StatusOK, CertificateList{
		Items:    listObjects(head.Certificates, r.URL.Query().Get("q"), redacted),
		Revision: head.Revision,
	})
	return nil
}

// getCertificate godoc
//
//	@Summary	Get a certificate
//	@Tags		certificates
//	@Produce	json
//	@Param		name	path		string	true	"certificate name"
//	@Success	200		{object}	api.Certificate
//	@Header		200		{string}	ETag	"the certificate's version"
//	@Success	304
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/certificates/{name} [get]
func (s *Server) getCertificate(w http.ResponseWriter, r *http.Request) error {
	return getObject(w, r, s.history.Head().Certificates, api.KindCertificate, certificateVersion, redacted)
}

// createCertificate godoc
//
//	@Summary	Create a certificate
//	@Description	Fails with 409 if a certificate of that name exists.
//	@Tags		certificates
//	@Accept		json
//	@Produce	json
//	@Param		certificate		body		api.Certificate	true	"the certificate with its key"
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
//	@Router		/api/v1/certificates [post]
func (s *Server) createCertificate(w http.ResponseWriter, r *http.Request) error {
	var v api.Certificate
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	if v.Key == "" {
		return api.Invalid("key", "a new certificate needs its private key")
	}
	return s.bodyWrite(w, r, "/api/v1/certificates/", &v.Name, v.Source, api.Mutation{Kind: api.KindCertificate, Certificate: &v})
}

// putCertificate godoc
//
//	@Summary	Create or replace a certificate
//	@Tags		certificates
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string		true	"certificate name"
//	@Param		certificate		body		api.Certificate	true	"the certificate; its name may be omitted, and its key too to keep the stored one"
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
//	@Router		/api/v1/certificates/{name} [put]
func (s *Server) putCertificate(w http.ResponseWriter, r *http.Request) error {
	var v api.Certificate
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "", &v.Name, v.Source, api.Mutation{Kind: api.KindCertificate, Certificate: &v})
}

// deleteCertificate godoc
//
//	@Summary	Delete a certificate
//	@Description	Fails with 409 while a server uses it.
//	@Tags		certificates
//	@Produce	json
//	@Param		name			path		string	true	"certificate name"
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
//	@Router		/api/v1/certificates/{name} [delete]
func (s *Server) deleteCertificate(w http.ResponseWriter, r *http.Request) error {
	return s.deleteObject(w, r, api.KindCertificate)
}
