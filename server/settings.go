package server

import (
	"encoding/json"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// getSettings godoc
//
//	@Summary	Get the global settings
//	@Tags		settings
//	@Produce	json
//	@Success	200	{object}	api.Settings
//	@Header		200	{string}	ETag	"the settings' version"
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/settings [get]
func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) error {
	st := s.history.Head().Settings
	if done, err := conditionalGet(w, r, st.Version); done || err != nil {
		return err
	}
	w.Header().Set("ETag", etag(st.Version))
	writeJSON(w, http.StatusOK, st)
	return nil
}

// putSettings godoc
//
//	@Summary	Replace the global settings
//	@Description	Needs the admin role. Changing settings reloads nginx at the next apply.
//	@Tags		settings
//	@Accept		json
//	@Produce	json
//	@Param		settings		body		api.Settings	true	"every setting"
//	@Param		If-Match		header		string			false	"the version (ETag) this write replaces"
//	@Param		dryRun			query		bool			false	"validate and return the diff, store nothing"
//	@Param		autoRollback	query	bool	false	"false: the applier never rolls the revision back automatically"
//	@Param		X-Auto-Rollback	header	string	false	"off: the applier never rolls the revision back automatically"
//	@Param		message			query		string			false	"reason for the change"
//	@Param		X-Change-Reason	header		string			false	"reason for the change"
//	@Success	200				{object}	api.WriteResult
//	@Failure	400				{object}	ErrorResponse
//	@Failure	401				{object}	ErrorResponse
//	@Failure	403				{object}	ErrorResponse
//	@Failure	412				{object}	ErrorResponse
//	@Failure	413				{object}	ErrorResponse
//	@Failure	415				{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/settings [put]
func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	var st api.Settings
	if err := decode(w, r, &st, maxObjectBody); err != nil {
		return err
	}
	meta, err := writeMeta(r, "")
	if err != nil {
		return err
	}
	return s.objectWrite(w, r, meta, api.Mutation{Kind: api.KindSettings, Name: api.SettingsName, Settings: &st}, "")
}

// sameSettings compares settings by what they configure, not by their version.
func sameSettings(a, b api.Settings) bool {
	a.Version, b.Version = 0, 0
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
