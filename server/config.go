package server

import (
	"context"
	"encoding/json"
	"math"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// ConfigRequest is the body of PUT /api/v1/config: the whole desired state of what the REST
// API owns. What it leaves out is deleted, except the settings, which an omitted "settings"
// keeps as they are (all-zero settings mean the defaults).
type ConfigRequest struct {
	// Revision is ignored; If-Match carries the precondition. It is accepted so that the
	// answer of GET /config can be sent back as it is.
	Revision     int64             `json:"revision,omitempty"`
	Settings     *api.Settings     `json:"settings,omitempty"`
	Backends     []api.Backend     `json:"backends"`
	Servers      []api.Server      `json:"servers"`
	Certificates []api.Certificate `json:"certificates"`
	// Htpasswds: one without content keeps its stored lines (policies).
	Htpasswds []api.Htpasswd `json:"htpasswds,omitempty"`
	// CACertificates: CA bundles for upstream verification (policies).
	CACertificates []api.CACertificate `json:"caCertificates,omitempty"`
}

// getConfig godoc
//
//	@Summary	Get the whole desired state
//	@Description	The head, or with ?revision=N the state at any past revision. Certificate keys are never included.
//	@Tags		config
//	@Produce	json
//	@Param		revision	query		int	false	"a past revision (default: the head)"
//	@Success	200			{object}	api.Config
//	@Header		200			{string}	ETag	"the revision"
//	@Success	304
//	@Failure	400			{object}	ErrorResponse
//	@Failure	401			{object}	ErrorResponse
//	@Failure	404			{object}	ErrorResponse
//	@Failure	410			{object}	ErrorResponse	"the revision was pruned by the retention policy"
//	@Security	BearerAuth
//	@Router		/api/v1/config [get]
func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	rev, err := queryInt(r, "revision", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	state := s.history.Head()
	if rev != 0 && rev != state.Revision {
		if state, err = s.history.State(r.Context(), rev, false); err != nil {
			return err
		}
	}
	if done, err := conditionalGet(w, r, state.Revision); done || err != nil {
		return err
	}
	w.Header().Set("ETag", etag(state.Revision))
	writeJSON(w, http.StatusOK, state.Config(false))
	return nil
}

// putConfig godoc
//
//	@Summary	Replace the whole desired state
//	@Description	Declarative: in one revision, the api-owned backends, servers and certificates become exactly the ones sent, and the settings those sent (omitted: unchanged; changing them needs the admin role). Kubernetes-owned objects are kept; the ones in the body must be unchanged. A certificate without a key keeps its stored key.
//	@Tags		config
//	@Accept		json
//	@Produce	json
//	@Param		config			body		ConfigRequest	true	"the desired state"
//	@Param		If-Match		header		string			false	"the head revision (ETag of GET /config) this replaces"
//	@Param		dryRun			query		bool			false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string			false	"reason for the change"
//	@Param		X-Change-Reason	header		string			false	"reason for the change"
//	@Success	200				{object}	api.WriteResult
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	409				{object}	ErrorResponse
//	@Failure	412				{object}	ErrorResponse
//	@Failure	413				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/config [put]
func (s *Server) putConfig(w http.ResponseWriter, r *http.Request) error {
	var req ConfigRequest
	if err := decode(w, r, &req, maxConfigBody); err != nil {
		return err
	}
	meta, err := writeMeta(r, "")
	if err != nil {
		return err
	}
	head := s.history.Head()
	cfg := api.Config{Settings: head.Settings, Backends: req.Backends, Servers: req.Servers, Certificates: req.Certificates, Htpasswds: req.Htpasswds, CACertificates: req.CACertificates}
	if req.Settings != nil {
		cfg.Settings = *req.Settings
		// Zero settings mean the defaults, as in the store.
		if sameSettings(cfg.Settings, api.Settings{}) {
			cfg.Settings = api.DefaultSettings()
		}
		if !sameSettings(cfg.Settings, head.Settings) && api.RoleRank(tokenFrom(r.Context()).Role) < api.RoleRank(api.RoleAdmin) {
			s.deny(w, r, api.RoleAdmin)
			return nil
		}
	}
	if err := dropKubernetesOwned(&cfg, head); err != nil {
		return err
	}
	return s.commit(w, r, write{
		op: opConfig, action: api.AuditWrite, target: "config", meta: meta,
		do: func(ctx context.Context, meta api.Meta) (*api.WriteResult, error) {
			return s.history.ReplaceConfig(ctx, meta, cfg)
		},
	})
}

// dropKubernetesOwned removes from cfg the kubernetes-owned objects that equal the head's,
// so that the answer of GET /config can be edited and sent back; the store keeps them
// anyway. A kubernetes-owned object that differs is refused: the reconciler owns it.
func dropKubernetesOwned(cfg *api.Config, head *api.State) error {
	var err error
	if cfg.Backends, err = withoutKubernetes(api.KindBackend, cfg.Backends,
		func(b api.Backend) (string, api.Source) { return b.Name, b.Source },
		func(name string) (any, bool) { b, ok := head.Backends[name]; return derefAny(b), ok },
	); err != nil {
		return err
	}
	if cfg.Servers, err = withoutKubernetes(api.KindServer, cfg.Servers,
		func(v api.Server) (string, api.Source) { return v.Name, v.Source },
		func(name string) (any, bool) { v, ok := head.Servers[name]; return derefAny(v), ok },
	); err != nil {
		return err
	}
	cfg.Certificates, err = withoutKubernetes(api.KindCertificate, cfg.Certificates,
		func(c api.Certificate) (string, api.Source) { return c.Name, c.Source },
		func(name string) (any, bool) {
			c, ok := head.Certificates[name]
			if !ok {
				return nil, false
			}
			return c.Redacted(), true
		},
	)
	if err != nil {
		return err
	}
	// Htpasswds (policies), compared without their lines like certificates.
	cfg.Htpasswds, err = withoutKubernetes(api.KindHtpasswd, cfg.Htpasswds,
		func(h api.Htpasswd) (string, api.Source) { return h.Name, h.Source },
		func(name string) (any, bool) {
			h, ok := head.Htpasswds[name]
			if !ok {
				return nil, false
			}
			return h.Redacted(), true
		},
	)
	if err != nil {
		return err
	}
	// CA bundles (policies) hold no secret: compared as they are.
	cfg.CACertificates, err = withoutKubernetes(api.KindCACertificate, cfg.CACertificates,
		func(c api.CACertificate) (string, api.Source) { return c.Name, c.Source },
		func(name string) (any, bool) { c, ok := head.CACertificates[name]; return derefAny(c), ok },
	)
	return err
}

// withoutKubernetes returns objs without the kubernetes-owned ones that equal their head
// copy, or a conflict for one that does not.
func withoutKubernetes[T any](kind string, objs []T, ident func(T) (string, api.Source), head func(string) (any, bool)) ([]T, error) {
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		name, src := ident(o)
		if src.Kind != api.SourceKubernetes {
			out = append(out, o)
			continue
		}
		if h, ok := head(name); ok && sameJSON(o, h) {
			continue
		}
		return nil, &api.Error{Code: api.EConflict, Field: kind + "s",
			Message: kind + " " + printable(name) + " is owned by Kubernetes; edit the Kubernetes object instead"}
	}
	return out, nil
}

// derefAny returns *p as an any, for comparing by JSON.
func derefAny[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// sameJSON compares two objects by their JSON, ignoring their version.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var ma, mb map[string]any
	if json.Unmarshal(ja, &ma) != nil || json.Unmarshal(jb, &mb) != nil {
		return false
	}
	delete(ma, "version")
	delete(mb, "version")
	na, _ := json.Marshal(ma)
	nb, _ := json.Marshal(mb)
	return string(na) == string(nb)
}
