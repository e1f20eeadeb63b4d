package reconciler

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// heldShown is how many held objects a message names before "and N more".
const heldShown = 3

// heldGatewayReport returns rep with what the holds keep back told, copying what it
// changes: rep belongs to the cached translation. After a rollback the proxy serves a
// revision newer than the one that last changed a Gateway, yet what its routes ask for
// is held back and not served: a Gateway any of whose objects is held gets Held, its
// Programmed condition's message, and a route any of whose objects is held a RolledBack
// Warning. Both end with the hold, when the route asks for something else.
func heldGatewayReport(rep *GatewayReport, held map[api.Ref]api.Hold) *GatewayReport {
	if rep == nil || len(held) == 0 {
		return rep
	}
	out := *rep
	out.Gateways = slices.Clone(rep.Gateways)
	for i, g := range out.Gateways {
		if names, revs := heldOf(g.Objects, held); names != "" {
			out.Gateways[i].Held = fmt.Sprintf("%s, a rollback, holds %s back from what the Gateway's routes ask for: the proxy serves them as the rollback left them until a route asks for something else (it is edited) or an editor releases them (DELETE /api/v1/holds/{kind}/{name})",
				revs, names)
		}
	}
	out.Routes = maps.Clone(rep.Routes)
	for k, r := range rep.Routes {
		names, revs := heldOf(r.Objects, held)
		if names == "" {
			continue
		}
		c := *r
		// The generation in the message tells each generation afresh, as an Ingress is:
		// an edit that still asks for what was rolled back hears it again.
		c.Problems = append(slices.Clip(r.Problems), Problem{Reason: ReasonRolledBack, Message: fmt.Sprintf(
			"%s, a rollback, took %s back from what generation %d of this %s asks for: they stay as the rollback left them until the %s asks for something else (or an editor releases them: DELETE /api/v1/holds/{kind}/{name})",
			revs, names, r.Meta.Generation, r.Kind, r.Kind)})
		out.Routes[k] = &c
	}
	return &out
}

// heldOf names the held objects among refs, a few and then how many more ("" for none),
// and the rollbacks that hold them: "revision 7", or "revisions 7, 9".
func heldOf(refs []api.Ref, held map[api.Ref]api.Hold) (names, revs string) {
	var shown []string
	more := 0
	byRev := map[int64]bool{}
	for _, ref := range refs {
		h, ok := held[ref]
		if !ok {
			continue
		}
		byRev[h.Revision] = true
		if len(shown) < heldShown {
			shown = append(shown, ref.Kind+" "+ref.Name)
		} else {
			more++
		}
	}
	if len(shown) == 0 {
		return "", ""
	}
	names = strings.Join(shown, ", ")
	if more > 0 {
		names += fmt.Sprintf(" and %d more", more)
	}
	var rs []string
	for _, r := range slices.Sorted(maps.Keys(byRev)) {
		rs = append(rs, strconv.FormatInt(r, 10))
	}
	revs = "revision " + rs[0]
	if len(rs) > 1 {
		revs = "revisions " + strings.Join(rs, ", ")
	}
	return names, revs
}
