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
// is held back and not served. A listener through which routes make a held object gets
// Held, its Programmed condition's message; the Gateway does when an object of its own
// (no listener's routes make it: a listener's certificate, the catch-all an HTTPS
// listener without a hostname makes) is held, or when none of its listeners is
// programmed for the holds. On a Gateway many teams' routes share, one team's hold thus
// leaves the others' listeners, and the Gateway, Programmed. A route any of whose
// objects is held gets a RolledBack Warning. Each ends with the hold, when the route
// asks for something else.
func heldGatewayReport(rep *GatewayReport, held map[api.Ref]api.Hold) *GatewayReport {
	if rep == nil || len(held) == 0 {
		return rep
	}
	out := *rep
	out.Gateways = slices.Clone(rep.Gateways)
	for i := range out.Gateways {
		out.Gateways[i] = heldGateway(out.Gateways[i], held)
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

// heldGateway is g with Held set on it and on its listeners, copying the listeners
// when it changes them (see heldGatewayReport).
func heldGateway(g GatewayStatusReport, held map[api.Ref]api.Hold) GatewayStatusReport {
	names, revs := heldOf(g.Objects, held)
	if names == "" {
		return g
	}
	heldMsg := func(names, revs, whose string) string {
		return fmt.Sprintf("%s, a rollback, holds %s back from what %s routes ask for: the proxy serves them as the rollback left them until a route asks for something else (it is edited) or an editor releases them (DELETE /api/v1/holds/{kind}/{name})",
			revs, names, whose)
	}
	g.Listeners = slices.Clone(g.Listeners)
	viaListener := objectSet{}
	programmed := false
	for i, l := range g.Listeners {
		for _, ref := range l.Objects {
			viaListener[ref] = true
		}
		if n, r := heldOf(l.Objects, held); n != "" {
			g.Listeners[i].Held = heldMsg(n, r, "the listener's")
		} else if l.Programmable {
			programmed = true
		}
	}
	own := false
	for _, ref := range g.Objects {
		if _, ok := held[ref]; ok && !viaListener[ref] {
			own = true
		}
	}
	if own || !programmed {
		g.Held = heldMsg(names, revs, "the Gateway's")
	}
	return g
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
