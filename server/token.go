package server

import (
	"net/http"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// TokenList is the answer to GET /api/v1/tokens; secrets are never listed.
type TokenList struct {
	Items []api.Token `json:"items"`
}

// TokenRequest is the body of POST /api/v1/tokens.
type TokenRequest struct {
	Name string `json:"name" example:"ci-deploy"`
	Role string `json:"role" enums:"viewer,editor,admin" example:"editor"`
}

// Identity is the answer to GET /api/v1/whoami.
type Identity struct {
	Name string `json:"name" example:"ci-deploy"`
	Role string `json:"role" enums:"viewer,editor,admin" example:"editor"`
}

// whoami godoc
//
//	@Summary	The caller's token name and role
//	@Tags		tokens
//	@Produce	json
//	@Success	200	{object}	Identity
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/whoami [get]
func (s *Server) whoami(w http.ResponseWriter, r *http.Request) error {
	tok := tokenFrom(r.Context())
	writeJSON(w, http.StatusOK, Identity{Name: tok.Name, Role: tok.Role})
	return nil
}

// listTokens godoc
//
//	@Summary	List tokens
//	@Description	Needs the admin role. Secrets are never listed.
//	@Tags		tokens
//	@Produce	json
//	@Success	200	{object}	TokenList
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/tokens [get]
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	items, err := s.tokens.Tokens(r.Context())
	if err != nil {
		return err
	}
	for i := range items {
		items[i].Secret = ""
	}
	if items == nil {
		items = []api.Token{}
	}
	writeJSON(w, http.StatusOK, TokenList{Items: items})
	return nil
}

// createToken godoc
//
//	@Summary	Create a token
//	@Description	Needs the admin role. The answer holds the secret, once: it is stored only as a hash.
//	@Tags		tokens
//	@Accept		json
//	@Produce	json
//	@Param		token	body		TokenRequest	true	"name and role"
//	@Success	201		{object}	api.Token
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Failure	403		{object}	ErrorResponse
//	@Failure	409		{object}	ErrorResponse
//	@Failure	415		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/tokens [post]
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	var req TokenRequest
	if err := decode(w, r, &req, maxObjectBody); err != nil {
		return err
	}
	if err := (&api.Token{Name: req.Name, Role: req.Role}).Validate(); err != nil {
		return err
	}
	ev := api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Action: api.AuditTokenCreate,
		Target: "token/" + req.Name, Outcome: "success", Detail: "role " + req.Role}
	tok, err := s.tokens.CreateToken(r.Context(), req.Name, req.Role, "")
	if err != nil {
		ev.Outcome, ev.Detail = "failure", api.ErrorCode(err)+": "+api.ErrorMessage(err)
		s.audit(r, ev)
		return err
	}
	s.audit(r, ev)
	w.Header().Set("Location", "/api/v1/tokens/"+strconv.FormatInt(tok.ID, 10))
	writeJSON(w, http.StatusCreated, tok)
	return nil
}

// deleteToken godoc
//
//	@Summary	Revoke a token
//	@Description	Needs the admin role. The last admin token cannot be revoked.
//	@Tags		tokens
//	@Param		id	path	int	true	"token id"
//	@Success	204
//	@Failure	400	{object}	ErrorResponse
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Failure	409	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/tokens/{id} [delete]
func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	toks, err := s.tokens.Tokens(r.Context())
	if err != nil {
		return err
	}
	var victim *api.Token
	admins := 0
	for i, t := range toks {
		if t.ID == id {
			victim = &toks[i]
		}
		if t.Role == api.RoleAdmin {
			admins++
		}
	}
	if victim == nil {
		return api.Errorf(api.ENotFound, "token %d does not exist", id)
	}
	ev := api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Action: api.AuditTokenDelete,
		Target: "token/" + victim.Name, Outcome: "success"}
	if victim.Role == api.RoleAdmin && admins == 1 {
		err = api.Errorf(api.EConflict, "token %q is the last admin token; create another admin token first", victim.Name)
	} else {
		err = s.tokens.DeleteToken(r.Context(), id)
	}
	if err != nil {
		ev.Outcome, ev.Detail = "failure", api.ErrorCode(err)+": "+api.ErrorMessage(err)
		s.audit(r, ev)
		return err
	}
	s.audit(r, ev)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
