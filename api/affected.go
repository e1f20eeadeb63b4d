package api

// AffectedBackends lists the backends whose traffic a change from running to head
// touches: backends that changed (or whose canary did), and those a changed server routes
// to. The automatic rollback watches only these, so that a client cannot provoke a
// rollback through a path the revision did not touch.
func AffectedBackends(running, head *State) map[string]bool {
	out := map[string]bool{}
	if running == nil {
		return out
	}
	changed := map[string]bool{}
	for name, b := range head.Backends {
		if r := running.Backends[name]; r == nil || r.Version != b.Version {
			changed[name] = true
		}
	}
	for name, b := range head.Backends {
		if b.Canary != nil && changed[b.Canary.Backend] {
			changed[name] = true
		}
	}
	for name, s := range head.Servers {
		if r := running.Servers[name]; r == nil || r.Version != s.Version {
			for _, l := range s.Locations {
				changed[l.Backend] = true
			}
		}
	}
	for name := range changed {
		if head.Backends[name] != nil {
			out[name] = true
		}
	}
	return out
}
