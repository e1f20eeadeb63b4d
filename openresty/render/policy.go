package render

import (
	"encoding/hex"
	"fmt"
	"strconv"

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

// ServerPolicies returns the policies of a server's locations, in location order.
func ServerPolicies(s *api.Server) ([]LocationPolicy, error) {
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
