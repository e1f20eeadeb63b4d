package openresty

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// LocationPolicy is a location's access lists and counted limits as the Lua access phase
// reads them (policies). The conf names it by Name and holds nothing else of it,
// so a change of list or rate is a push, not a reload. CIDRs travel pre-encoded (see
// encodeCIDR), so that Lua never parses an address.
type LocationPolicy struct {
	// Name is "<server>/<index of the location in the server>".
	Name            string   `json:"name"`
	Allow           []string `json:"allow,omitempty"`
	Deny            []string `json:"deny,omitempty"`
	Exempt          []string `json:"exempt,omitempty"`
	RPS             int      `json:"rps,omitempty"`
	RPM             int      `json:"rpm,omitempty"`
	BurstMultiplier int      `json:"burstMultiplier,omitempty"`
	Connections     int      `json:"connections,omitempty"`
	Status          int      `json:"status,omitempty"`
}

// policyName names a location's policy in the conf and in shared memory.
func policyName(server string, index int) string { return server + "/" + strconv.Itoa(index) }

// hasPolicy reports whether a location has anything the access phase enforces.
func hasPolicy(l *api.Location) bool { return l.Access != nil || l.Limits.Counted() }

// serverPolicies returns the policies of a server's locations, in location order.
func serverPolicies(s *api.Server) ([]LocationPolicy, error) {
	var out []LocationPolicy
	for i := range s.Locations {
		l := &s.Locations[i]
		if !hasPolicy(l) {
			continue
		}
		p := LocationPolicy{Name: policyName(s.Name, i)}
		var err error
		if a := l.Access; a != nil {
			if p.Allow, err = encodeCIDRs(a.Allow); err != nil {
				return nil, err
			}
			if p.Deny, err = encodeCIDRs(a.Deny); err != nil {
				return nil, err
			}
		}
		if m := l.Limits; m.Counted() {
			if p.Exempt, err = encodeCIDRs(m.Exempt); err != nil {
				return nil, err
			}
			p.RPS, p.RPM, p.Connections = m.RPS, m.RPM, m.Connections
			p.BurstMultiplier, p.Status = m.Multiplier(), m.LimitStatus()
		}
		out = append(out, p)
	}
	return out, nil
}

// encodeCIDRs writes each CIDR as "<4|6>:<hex of its first ceil(bits/8) bytes>/<bits>",
// the key restyplane.cidr looks up for that prefix length.
func encodeCIDRs(list []string) ([]string, error) {
	var out []string
	for _, s := range list {
		p, err := api.ParseCIDR(s)
		if err != nil {
			return nil, err
		}
		fam := "6"
		if p.Addr().Is4() {
			fam = "4"
		}
		b := p.Addr().AsSlice()[:(p.Bits()+7)/8]
		out = append(out, fmt.Sprintf("%s:%s/%d", fam, hex.EncodeToString(b), p.Bits()))
	}
	return out, nil
}

// policyChanges lists the policies that differ between what runs and the head, and those
// gone. Only servers whose version moved are looked at: a policy belongs to its server.
func policyChanges(running, head *api.State, full bool) (changed []LocationPolicy, deleted []string) {
	var run map[string]*api.Server
	if running != nil {
		run = running.Servers
	}
	for name, s := range head.Servers {
		r := run[name]
		if !full && r != nil && r.Version == s.Version {
			continue
		}
		now, err := serverPolicies(s)
		if err != nil {
			continue // api refused such a server before it reached a state
		}
		var was []LocationPolicy
		if r != nil && !full {
			was, _ = serverPolicies(r)
		}
		old := map[string]LocationPolicy{}
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
				was, _ := serverPolicies(r)
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
func withSkippedPolicy(policies []LocationPolicy, head *api.State, name string) []LocationPolicy {
	server, _, _ := strings.Cut(name, "/")
	srv := head.Servers[server]
	if srv == nil || slices.ContainsFunc(policies, func(p LocationPolicy) bool { return p.Name == name }) {
		return policies
	}
	all, _ := serverPolicies(srv)
	for _, p := range all {
		if p.Name == name {
			policies = append(policies, p)
		}
	}
	return policies
}

// PushPolicies stores location policies stamped with version and deletes the deleted
// ones; with replace it deletes every policy not in the push.
func (c *AdminClient) PushPolicies(ctx context.Context, version int64, policies []LocationPolicy, deleted []string, replace bool) ([]api.SkippedObject, error) {
	body := struct {
		Version  int64            `json:"version"`
		Policies []LocationPolicy `json:"policies,omitempty"`
		Deleted  []string         `json:"deleted,omitempty"`
		Replace  bool             `json:"replace,omitempty"`
	}{version, policies, deleted, replace}
	var ans pushAnswer
	if err := c.do(ctx, http.MethodPost, "/policies", body, &ans); err != nil {
		return nil, err
	}
	return ans.objects(api.KindServer), nil
}

// Policies lists the names of the policies the instance holds.
func (c *AdminClient) Policies(ctx context.Context) ([]string, error) {
	var out []string
	err := c.do(ctx, http.MethodGet, "/policies", nil, &out)
	return out, err
}
