package server

import (
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// ServerList is the answer to GET /api/v1/servers.
type ServerList struct {
	Items []api.Server `json:"items"`
	// Revision is the head revision the list was read at.
	Revision int64 `json:"revision" example:"42"`
}

func serverVersion(s *api.Server) int64 { return s.Version }

// listServers godoc
//
//	@Summary	List servers
//	@Tags		servers
//	@Produce	json
//	@Param		q	query		string	false	"only servers whose name contains this"
//	@Success	200	{object}	ServerList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/servers [get]
func (s *Server) listServers(w http.ResponseWriter, r *http.Request) error {
	head := s.history.Head()
	writeJSON(w, http.StatusOK, ServerList{
		Items:    listObjects(head.Servers, r.URL.Query().Get("q"), same[api.Server]),
		Revision: head.Revision,
	})
	return nil
}

// getServer godoc
//
//	@Summary	Get a server
//	@Tags		servers
//	@Produce	json
//	@Param		name	path		string	true	"server name"
//	@Success	200		{object}	api.Server
//	@Header		200		{string}	ETag	"the server's version"
//	@Success	304
//	@Failure	401		{object}	ErrorResponse
//	@Failure	404		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/servers/{name} [get]
func (s *Server) getServer(w http.ResponseWriter, r *http.Request) error {
	return getObject(w, r, s.history.Head().Servers, api.KindServer, serverVersion, same[api.Server])
}

// createServer godoc
//
//	@Summary	Create a server
//	@Description	Fails with 409 if a server of that name exists.
//	@Tags		servers
//	@Accept		json
//	@Produce	json
//	@Param		server			body		api.Server	true	"the server"
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
//	@Router		/api/v1/servers [post]
func (s *Server) createServer(w http.ResponseWriter, r *http.Request) error {
	var v api.Server
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "/api/v1/servers/", &v.Name, v.Source, api.Mutation{Kind: api.KindServer, Server: &v})
}

// putServer godoc
//
//	@Summary	Create or replace a server
//	@Tags		servers
//	@Accept		json
//	@Produce	json
//	@Param		name			path		string		true	"server name"
//	@Param		server			body		api.Server	true	"the server; its name may be omitted"
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
//	@Router		/api/v1/servers/{name} [put]
func (s *Server) putServer(w http.ResponseWriter, r *http.Request) error {
	var v api.Server
	if err := decode(w, r, &v, maxObjectBody); err != nil {
		return err
	}
	return s.bodyWrite(w, r, "", &v.Name, v.Source, api.Mutation{Kind: api.KindServer, Server: &v})
}

// deleteServer godoc
//
//	@Summary	Delete a server
//	@Description	Its hostnames stop being served at the next apply, which reloads nginx.
//	@Tags		servers
//	@Produce	json
//	@Param		name			path		string	true	"server name"
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
//	@Router		/api/v1/servers/{name} [delete]
func (s *Server) deleteServer(w http.ResponseWriter, r *http.Request) error {
	return s.deleteObject(w, r, api.KindServer)
}
