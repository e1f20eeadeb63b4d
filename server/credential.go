package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// defaultMaxInstances is how many instances a fleet takes when Options.MaxInstances is
// not set: each is a row, a credential and a few metric series.
const defaultMaxInstances = 1000

// joinInstance godoc
//
//	@Summary	An agent joins the fleet: a join token for its instance's credential
//	@Description	For the dataplane role (a join token) only. Makes a credential bound to the instance name and answers it once: the agent keeps it (0600, in its data dir) and sends it, not the join token, on the feed and in its reports, which it may do for this instance alone. A name that joined already is a 409 (each agent needs its own name); a revoked one is a 403 until an admin forgets the instance; a fleet at its cap of instances is a 409.
//	@Tags		fleet
//	@Produce	json
//	@Param		name	path		string	true	"the instance name"
//	@Success	201		{object}	api.Credential
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Failure	403		{object}	ErrorResponse
//	@Failure	409		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/instances/{name}/join [post]
func (s *Server) joinInstance(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "name")
	if err := api.ValidName("name", name); err != nil {
		return err
	}
	tok := tokenFrom(r.Context())
	cred, err := s.tokens.JoinInstance(r.Context(), api.Meta{Actor: tok.Name, Remote: remoteHost(r)}, name, s.maxInstances)
	if err != nil {
		if code := api.ErrorCode(err); code == api.EConflict || code == api.EForbidden {
			s.denials.audit(r, api.AuditEvent{Actor: tok.Name, Action: api.AuditInstanceJoin, Target: "instance/" + name,
				Outcome: "failure", Detail: code + ": " + api.ErrorMessage(err)})
		}
		return err
	}
	writeJSON(w, http.StatusCreated, cred)
	return nil
}

// revokeInstance godoc
//
//	@Summary	Revoke one instance's credential
//	@Description	For admins. The instance's feed stream ends at once and its credential is refused from then on, across restarts; no agent may join under its name until an admin forgets the instance. The other instances are untouched. The revoked data plane keeps serving the last state it applied.
//	@Tags		fleet
//	@Param		name	path	string	true	"the instance name"
//	@Success	204
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/instances/{name}/credential [delete]
func (s *Server) revokeInstance(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "name")
	if err := api.ValidName("name", name); err != nil {
		return err
	}
	ev := api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Action: api.AuditInstanceRevoke,
		Target: "instance/" + name, Outcome: "success"}
	err := s.tokens.RevokeInstance(r.Context(), name)
	if err != nil {
		ev.Outcome, ev.Detail = "failure", api.ErrorCode(err)+": "+api.ErrorMessage(err)
	} else {
		s.fleet.cut(name)
	}
	s.audit(r, ev)
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// speaksFor refuses, with a 403 that is audited, a caller whose credential is not the
// instance name's: an agent reads the feed and reports for its own instance alone.
func (s *Server) speaksFor(r *http.Request, name string) error {
	tok := tokenFrom(r.Context())
	if tok.Role == api.RoleInstance && tok.Instance == name {
		return nil
	}
	s.denials.audit(r, api.AuditEvent{Actor: tok.Name, Action: api.AuditDenied,
		Target: r.Method + " " + routePattern(r), Outcome: "failure",
		Detail: "the credential of instance " + tok.Instance + " does not speak for " + name})
	return api.Errorf(api.EForbidden, "the credential of instance %q does not speak for instance %q", tok.Instance, name)
}
