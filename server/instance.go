package server

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// maxReportBody bounds a report: counters of thousands of servers and a hundred apply
// records fit well under it.
const maxReportBody = 2 << 20

// report godoc
//
//	@Summary	An agent reports on its instance
//	@Description	For an instance's credential only, and only for its own instance. Stores the apply records (under the instance's name: /applies and the audit log show them) and the instance's version, state and applied revision. Agents send one 50 ms after an apply begins, with nginx's answer to its push (heldMs says how long they held it), and as a heartbeat. Every field is bounded (at most 100 apply records, 20000 counters each, 8 KiB of error text), every revision named must exist (400), the body is at most 2 MiB (413), and an instance that reports more than 10 times or sends more than 10 apply records a second past a burst is answered 429.
//	@Tags		fleet
//	@Accept		json
//	@Param		name	path	string		true	"the instance name"
//	@Param		report	body	api.Report	true	"the report"
//	@Param		X-Restyplane-Agent-Id	header	string	false	"the agent's identity: refused (409) while another agent holds the name"
//	@Success	204
//	@Failure	400	{object}	ErrorResponse
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	409	{object}	ErrorResponse
//	@Failure	413	{object}	ErrorResponse
//	@Failure	429	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/instances/{name}/report [post]
func (s *Server) report(w http.ResponseWriter, r *http.Request) error {
	name := chi.URLParam(r, "name")
	if err := api.ValidName("name", name); err != nil {
		return err
	}
	if err := s.speaksFor(r, name); err != nil {
		return err
	}
	id, err := agentID(r)
	if err != nil {
		return err
	}
	if err := s.fleet.speaksFor(name, id); err != nil {
		return err
	}
	var rep api.Report
	if err := decode(w, r, &rep, maxReportBody); err != nil {
		return err
	}
	if err := rep.Validate(); err != nil {
		return err
	}
	head := s.history.Head().Revision
	for _, rev := range rep.Revisions() {
		if rev > head {
			return api.Invalid("applied", "revision %d does not exist: the head is %d", rev, head)
		}
	}
	now := time.Now()
	if err := s.fleet.admit(name, len(rep.Applies), now); err != nil {
		return err
	}
	s.observePropagation(r.Context(), &rep, now)
	if s.counters != nil && rep.Backends != nil {
		s.counters.Observe(name, rep.Applied, rep.Backends)
	}
	if s.fleet.report(name, &rep, now) {
		if err := s.reports.store(s.fleetStore, api.InstanceReport{Name: name, Report: &rep, Seen: now}); err != nil {
			return err
		}
		s.fleet.stored(name, now)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// agentID is the identity an agent sends (api.AgentIDHeader), "" from an agent too old
// to send one.
func agentID(r *http.Request) (string, error) {
	id := r.Header.Get(api.AgentIDHeader)
	if id != "" && !api.ValidAgentID(id) {
		return "", api.Invalid(api.AgentIDHeader, "%s must be 32 lower-case hexadecimal digits", api.AgentIDHeader)
	}
	return id, nil
}

// observePropagation measures, for the newest revision the report says went live, the
// time from its write until the agent applied it: from the write to now on the control
// plane's clock, less the time the agent held the report (a duration on its own clock),
// so that the agents' clocks do not matter.
func (s *Server) observePropagation(ctx context.Context, rep *api.Report, now time.Time) {
	var rev int64
	for _, a := range rep.Applies {
		if a.Outcome == api.OutcomeSuccess && a.Revision > rev {
			rev = a.Revision
		}
	}
	if rev == 0 {
		return
	}
	var written time.Time
	if head := s.history.Head(); head.Revision == rev {
		written = head.Written
	} else if r, err := s.history.Revision(ctx, rev); err == nil {
		written = r.Time
	}
	if !written.IsZero() {
		held := time.Duration(rep.HeldMS * float64(time.Millisecond))
		s.fleet.propagation.Observe(max(0, now.Sub(written)-held).Seconds())
	}
}

// listInstances godoc
//
//	@Summary	List the OpenResty instances: serve's own and every agent's
//	@Description	Each with its version, whether it holds a feed stream now, when it was last heard from, the revision it serves, how far it lags the head, its state and its last apply (with nginx's error when rejected).
//	@Tags		fleet
//	@Produce	json
//	@Success	200	{object}	api.InstanceList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/instances [get]
func (s *Server) listInstances(w http.ResponseWriter, r *http.Request) error {
	list, err := s.instances(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// instances lists serve's own instance, when it runs one, then the agents by name.
func (s *Server) instances(ctx context.Context) (api.InstanceList, error) {
	head := s.history.Head().Revision
	list := api.InstanceList{Head: head, Items: []api.Instance{}}
	if s.applier != nil {
		st := s.applier.Status(ctx)
		now := time.Now().UTC()
		list.Items = append(list.Items, api.Instance{Name: st.Instance, Version: s.version, Managed: true,
			Connected: true, FirstSeen: s.started, LastSeen: now, Applied: st.Applied, Lag: lag(head, st.Applied),
			Rejected: st.Rejected, State: st.State, LastApply: st.LastApply})
	}
	agents, err := s.fleetStore.Instances(ctx)
	if err != nil {
		return list, err
	}
	for i := range agents {
		s.fleet.fill(&agents[i])
		agents[i].Lag = lag(head, agents[i].Applied)
	}
	list.Items = append(list.Items, agents...)
	return list, nil
}

// fleetSummary counts the instances and those at the head.
func (s *Server) fleetSummary(ctx context.Context) (*api.Fleet, error) {
	list, err := s.instances(ctx)
	if err != nil {
		return nil, err
	}
	f := &api.Fleet{Instances: len(list.Items)}
	for _, in := range list.Items {
		if in.Applied == list.Head {
			f.AtHead++
		}
		if in.Connected {
			f.Connected++
		}
	}
	return f, nil
}

// Connected lists the agents that hold a feed stream now: the automatic rollback counts
// them among the instances that run a revision under watch.
func (s *Server) Connected() []string { return s.fleet.connectedNames() }
