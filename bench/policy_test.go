package bench

import (
	"fmt"
	"math/rand"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// The policy benchmark's size: an allow list of 1,000 CIDRs, and how long
// each configuration is loaded in each of the rounds, which interleave the three so that
// a change of the machine's load falls on all of them alike.
const (
	policyCIDRs  = 1000
	policyRounds = 6
	policyRun    = 5 * time.Second
	policyGoal   = 0.90 // within 10% of the route without a policy
)

var policyShape = wrkShape{threads: 2, connections: 16}

// policyAllowList is 1,000 CIDRs of every prefix length from /9 to /32 that do not hold
// the client (127.0.0.1), then 127.0.0.0/8: the lookup goes from /32 down and finds the
// client only at the last length, the worst case a list of these lengths can give.
func policyAllowList() []string {
	r := rand.New(rand.NewSource(11))
	seen := map[netip.Prefix]bool{}
	var out []string
	for len(out) < policyCIDRs {
		a := netip.AddrFrom4([4]byte{byte(1 + r.Intn(100)), byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(256))})
		p, _ := a.Prefix(9 + len(out)%24)
		if !seen[p] {
			seen[p] = true
			out = append(out, p.String())
		}
	}
	return append(out, "127.0.0.0/8")
}

// BenchmarkPolicies measures requests per second through the proxy for one route three
// ways: without a policy, with an allow list of 1,000 CIDRs that lets the client through
// after the longest lookup, and with a rate limit high enough never to refuse.
func BenchmarkPolicies(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		in := start(b)
		u := newUpstream(b, "web")
		limits := &api.LocationLimits{RPS: api.MaxLimitRate, Connections: api.MaxLimitConnections}
		routes := []struct {
			name string
			loc  api.Location
		}{
			{"no policy", api.Location{Path: "/", Backend: "web"}},
			{"allow list of 1,000 CIDRs", api.Location{Path: "/", Backend: "web", Access: &api.AccessPolicy{Allow: policyAllowList()}}},
			{"rate and connection limit", api.Location{Path: "/", Backend: "web", Limits: limits}},
		}
		var servers []api.Server
		for k, r := range routes {
			servers = append(servers, api.Server{Name: fmt.Sprintf("p%d", k), Hostnames: []string{policyHost(k)}, Locations: []api.Location{r.loc}})
		}
		rev := in.mustWrite("PUT", "/api/v1/config", server.ConfigRequest{
			Backends: []api.Backend{{Name: "web", Endpoints: u.endpoints()}}, Servers: servers})
		in.waitApplied(rev, 60*time.Second)
		c := newProxyClient(in)
		for k := range routes {
			if code, from, err := c.get(policyHost(k), "/"); code != 200 || from != "web" {
				b.Fatalf("%s: %d from %q (%v), want 200 from web", routes[k].name, code, from, err)
			}
		}
		rps := make([][]float64, len(routes))
		for round := 0; round < policyRounds; round++ {
			// Each round starts with another configuration, so none is always first.
			for j := range routes {
				k := (j + round) % len(routes)
				w := startWrk(b, in.Proxy+"/", policyHost(k), policyShape)
				time.Sleep(policyRun)
				res := w.stop()
				if res.failed() > 0 {
					b.Fatalf("%s: %d of %d requests failed", routes[k].name, res.failed(), res.Requests)
				}
				rps[k] = append(rps[k], res.rps())
			}
		}
		var body strings.Builder
		body.WriteString(header("Policies: access list and rate limit per request", "BenchmarkPolicies", load))
		fmt.Fprintf(&body, "Load: wrk, %s, against one route of one server, %d rounds of %s per configuration, interleaved. "+
			"A ratio is the median, over the rounds, of the configuration's requests per second over the same round's "+
			"without a policy (runs of one round are seconds apart, so a change of load falls on them alike); the goal is %.0f%%.  \n"+
			"Load average when it ended: %s\n\n", policyShape, policyRounds, policyRun, policyGoal*100, loadAverage())
		body.WriteString("| route | requests/s (median) | rounds | ratio to no policy (median of rounds) | goal |\n|---|---|---|---|---|\n")
		for k, r := range routes {
			ratios := make([]float64, policyRounds)
			for round := range ratios {
				ratios[round] = rps[k][round] / rps[0][round]
			}
			ratio := median(ratios)
			goal := "—"
			if k > 0 {
				goal = verdict(ratio >= policyGoal)
			}
			fmt.Fprintf(&body, "| %s | %.0f | %s | %.3f | %s |\n", r.name, median(rps[k]), roundsOf(rps[k]), ratio, goal)
		}
		body.WriteString("\nThe allow list is 1,000 CIDRs of every length from /9 to /32 and then 127.0.0.0/8, which " +
			"holds the client: the match is a hash lookup per prefix length from the longest, so the client is found at " +
			"the 25th, the most this list can take. The limit (1,000,000 requests a second and as many connections " +
			"per address) counts every request in the shared dict and never refuses; all of wrk's connections come " +
			"from 127.0.0.1, so they all count under one key.\n")
		report(b, "policies", body.String())
		in.Stop()
	}
}

func policyHost(k int) string { return fmt.Sprintf("p%d.bench.test", k) }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func roundsOf(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}
