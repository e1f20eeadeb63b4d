package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// forgetInstance godoc
//
//	@Summary	Forget an instance
//	@Description	For admins: removes an agent that holds no feed stream from the fleet view, /status and the per-instance metrics, such as an agent taken out of service or a pod that a rollout replaced (each pod reports under its own name), and removes its credential, revoked or not, so that an agent may join under the name again. Its apply records stay in the history. A connected agent is refused (409): stop it, or revoke it, first.
//	@Tags		fleet
//	@Param		name	path	string	true	"the instance name"
//	@Success	204
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Failure	409	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/instances/{name} [delete]
func (s *Server) forgetInstance(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "name")
	if err := api.ValidName("name", name); err != nil {
		return err
	}
	ev := api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Action: api.AuditInstanceForget,
		Target: "instance/" + name, Outcome: "success"}
	var err error
	if s.fleet.connected(name) {
		err = api.Errorf(api.EConflict, "instance %q holds a feed stream now; stop its agent first, or it is listed again at its next report", name)
	} else if err = s.forget(r, name); err == nil {
		s.fleet.forget(name)
	}
	if err != nil {
		ev.Outcome, ev.Detail = "failure", api.ErrorCode(err)+": "+api.ErrorMessage(err)
	}
	s.audit(r, ev)
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// connected reports whether name holds a feed stream now.
func (f *fleet) connected(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.members[name]
	return m != nil && m.streams > 0
}

// forget drops what memory holds of name, and its series of feed bytes.
func (f *fleet) forget(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.members, name)
	f.feedBytes.DeleteLabelValues(name)
}

// forget removes name from the registry and its credential; ENotFound when it held
// neither.
func (s *Server) forget(r *http.Request, name string) error {
	had, err := s.tokens.ForgetCredential(r.Context(), name)
	if err != nil {
		return err
	}
	err = s.fleetStore.DeleteInstance(r.Context(), name)
	if had && api.ErrorCode(err) == api.ENotFound {
		return nil
	}
	return err
}
