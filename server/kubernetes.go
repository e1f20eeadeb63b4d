package server

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// Hostnames is what the server needs for the hostnames Kubernetes namespaces hold.
type Hostnames interface {
	HostnameClaims(ctx context.Context) ([]api.HostnameClaim, error)
	GrantHostname(ctx context.Context, hostname, namespace string, ev api.AuditEvent) (*api.HostnameClaim, error)
	ReleaseHostname(ctx context.Context, hostname string, ev api.AuditEvent) error
}

// Ingresses says what restyplane does with each Ingress; the reconciler answers it, and
// it is nil when restyplane runs without a cluster.
type Ingresses interface {
	Verdicts(ctx context.Context, anyClass bool) (*api.IngressVerdicts, error)
}

// HostnameClaimList is the answer to GET /api/v1/kubernetes/hostnames.
type HostnameClaimList struct {
	Items []api.HostnameClaim `json:"items"`
}

// listIngresses godoc
//
//	@Summary	What restyplane does with each Ingress
//	@Description	Every Ingress of restyplane's class with its verdict (served or refused, and why) and each of its annotations' (honoured, refused with why, ignored). With class=any, also the Ingresses of other classes, evaluated as if they moved over.
//	@Tags		kubernetes
//	@Produce	json
//	@Param		class	query		string	false	"any: Ingresses of every class"
//	@Success	200		{object}	api.IngressVerdicts
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Failure	503		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/kubernetes/ingresses [get]
func (s *Server) listIngresses(w http.ResponseWriter, r *http.Request) error {
	class := r.URL.Query().Get("class")
	if class != "" && class != "any" {
		return api.Invalid("class", "must be any or absent")
	}
	if s.ingresses == nil {
		return api.Errorf(api.EUnavailable, "restyplane runs without a Kubernetes cluster")
	}
	v, err := s.ingresses.Verdicts(r.Context(), class == "any")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// listHostnames godoc
//
//	@Summary	Hostnames held by Kubernetes namespaces
//	@Description	Each hostname with the namespace that holds it, since when, and how: its first claim by an Ingress, or an admin's grant.
//	@Tags		kubernetes
//	@Produce	json
//	@Success	200	{object}	HostnameClaimList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/kubernetes/hostnames [get]
func (s *Server) listHostnames(w http.ResponseWriter, r *http.Request) error {
	items, err := s.hostnames.HostnameClaims(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, HostnameClaimList{Items: items})
	return nil
}

// grantHostname godoc
//
//	@Summary	Grant a hostname to a namespace
//	@Description	Needs the admin role. The namespace holds the hostname from now on, whoever held it, until an admin releases it. A hostname a REST server names is a 409.
//	@Tags		kubernetes
//	@Accept		json
//	@Produce	json
//	@Param		hostname	path		string				true	"hostname"
//	@Param		grant		body		api.HostnameGrant	true	"namespace"
//	@Success	200			{object}	api.HostnameClaim
//	@Failure	400			{object}	ErrorResponse
//	@Failure	401			{object}	ErrorResponse
//	@Failure	403			{object}	ErrorResponse
//	@Failure	409			{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/kubernetes/hostnames/{hostname} [put]
func (s *Server) grantHostname(w http.ResponseWriter, r *http.Request) error {
	var req api.HostnameGrant
	if err := decode(w, r, &req, maxObjectBody); err != nil {
		return err
	}
	c, err := s.hostnames.GrantHostname(r.Context(), chi.URLParam(r, "hostname"), req.Namespace,
		api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Remote: remoteHost(r)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// releaseHostname godoc
//
//	@Summary	Release a hostname
//	@Description	Needs the admin role. Ends the claim or grant; an Ingress that still names the hostname claims it again at the next sync.
//	@Tags		kubernetes
//	@Param		hostname	path	string	true	"hostname"
//	@Success	204
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/kubernetes/hostnames/{hostname} [delete]
func (s *Server) releaseHostname(w http.ResponseWriter, r *http.Request) error {
	err := s.hostnames.ReleaseHostname(r.Context(), chi.URLParam(r, "hostname"),
		api.AuditEvent{Actor: tokenFrom(r.Context()).Name, Remote: remoteHost(r)})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
