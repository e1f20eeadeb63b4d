package openresty

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// policyChanges lists the policies that differ between what runs and the head, and those
// gone. Only servers whose version moved are looked at: a policy belongs to its server.
func policyChanges(running, head *api.State, full bool) (changed []render.LocationPolicy, deleted []string) {
	var run map[string]*api.Server
	if running != nil {
		run = running.Servers
	}
	for name, s := range head.Servers {
		r := run[name]
		if !full && r != nil && r.Version == s.Version {
			continue
		}
		now, err := render.ServerPolicies(s)
		if err != nil {
			continue // api refused such a server before it reached a state
		}
		var was []render.LocationPolicy
		if r != nil && !full {
			was, _ = render.ServerPolicies(r)
		}
		old := map[string]render.LocationPolicy{}
		for _, p := range was {
			old[p.Name] = p
		}
		for _, p := range now {
			if o, ok := old[p.Name]; !ok || !reflect.DeepEqual(o, p) {
				changed = append(changed, p)
			}
			delete(old, p.Name)
		}
		for n := range old {
			deleted = append(deleted, n)
		}
	}
	if !full {
		for name, r := range run {
			if head.Servers[name] == nil {
				was, _ := render.ServerPolicies(r)
				for _, p := range was {
					deleted = append(deleted, p.Name)
				}
			}
		}
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].Name < changed[j].Name })
	sort.Strings(deleted)
	return changed, deleted
}

// withSkippedPolicy adds the policy named name, as head holds it, to policies unless it is
// there already.
func withSkippedPolicy(policies []render.LocationPolicy, head *api.State, name string) []render.LocationPolicy {
	server, _, _ := strings.Cut(name, "/")
	srv := head.Servers[server]
	if srv == nil || slices.ContainsFunc(policies, func(p render.LocationPolicy) bool { return p.Name == name }) {
		return policies
	}
	all, _ := render.ServerPolicies(srv)
	for _, p := range all {
		if p.Name == name {
			policies = append(policies, p)
		}
	}
	return policies
}
