package reconciler

import (
	"context"
	"fmt"
	"net"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// setClass brings a GatewayClass's status to the report's (see writeStatus).
func (p *gatewayReporter) setClass(ctx context.Context, c ClassReport) {
	gc := c.Class
	key := "GatewayClass " + gc.Name + " " + string(gc.UID)
	if !p.fresh(key, fmt.Sprint(c.Conditions, c.Features)) {
		return
	}
	classes := p.client.gatewayStatus.GatewayV1().GatewayClasses()
	_, err := writeStatus(ctx, p, key, gc, classes.Get, classes.UpdateStatus, func(cur *gatewayv1.GatewayClass) bool {
		conds := keepTransitions(cur.Status.Conditions, c.Conditions)
		if sameConditions(cur.Status.Conditions, conds) && fmt.Sprint(cur.Status.SupportedFeatures) == fmt.Sprint(c.Features) {
			return false
		}
		cur.Status.Conditions, cur.Status.SupportedFeatures = conds, c.Features
		return true
	})
	p.done(key, err, "gatewayclass", gc.Name)
}

// setGateway brings a Gateway's status to the report's; Programmed is true once the
// proxy serves the revision that last changed what the Gateway serves (got), on the
// Gateway and on each listener but one that a hold keeps back (its Held).
func (p *gatewayReporter) setGateway(ctx context.Context, g GatewayStatusReport, got programmed) {
	gw := g.Gateway
	gwProgrammed := programCondition(gatewayv1.GatewayConditionProgrammed, g.Programmable, got, g.ProgramMsg, gw.Generation)
	if !g.Programmable && g.ProgramReason != "" {
		gwProgrammed.Reason = g.ProgramReason
	}
	want := gatewayv1.GatewayStatus{Addresses: statusAddresses(g.Address), Conditions: []metav1.Condition{g.Accepted, gwProgrammed}}
	for _, l := range g.Listeners {
		st := l.Status
		lgot := got
		if l.Held != "" {
			lgot = heldProgrammed(l.Held) // its own routes' hold, which the Gateway's may not say
		}
		st.Conditions = append(append([]metav1.Condition(nil), st.Conditions...),
			programCondition(gatewayv1.ListenerConditionProgrammed, l.Programmable, lgot, l.ProgramMsg, gw.Generation))
		want.Listeners = append(want.Listeners, st)
	}
	key := "Gateway " + gw.Namespace + "/" + gw.Name + " " + string(gw.UID)
	if !p.fresh(key, fmt.Sprint(want)) {
		return
	}
	gws := p.client.gatewayStatus.GatewayV1().Gateways(gw.Namespace)
	_, err := writeStatus(ctx, p, key, gw, gws.Get, gws.UpdateStatus, func(cur *gatewayv1.Gateway) bool {
		st := want
		st.Conditions = keepTransitions(cur.Status.Conditions, want.Conditions)
		st.Listeners = nil
		for _, l := range want.Listeners {
			var have []metav1.Condition
			for _, h := range cur.Status.Listeners {
				if h.Name == l.Name {
					have = h.Conditions
				}
			}
			l.Conditions = keepTransitions(have, l.Conditions)
			st.Listeners = append(st.Listeners, l)
		}
		if sameGatewayStatus(cur.Status, st) {
			return false
		}
		cur.Status = st
		return true
	})
	p.done(key, err, "gateway", gw.Namespace+"/"+gw.Name)
}

// programCondition is a Programmed condition: false (Invalid) for what cannot be served,
// false until the proxy serves the revision got is of (Pending while it is on its way,
// Invalid once nginx refused it, with its error), true then.
func programCondition[T ~string](typ T, programmable bool, got programmed, why string, gen int64) metav1.Condition {
	switch {
	case !programmable:
		return condition(typ, false, gatewayv1.GatewayReasonInvalid, why, gen)
	case !got.served:
		return condition(typ, false, got.reason, got.msg, gen)
	}
	return condition(typ, true, gatewayv1.GatewayReasonProgrammed, "the proxy serves it", gen)
}

// statusAddresses are a Gateway's status.addresses: its address, when it has one.
func statusAddresses(addr string) []gatewayv1.GatewayStatusAddress {
	if addr == "" {
		return nil
	}
	t := gatewayv1.HostnameAddressType
	if net.ParseIP(addr) != nil {
		t = gatewayv1.IPAddressType
	}
	return []gatewayv1.GatewayStatusAddress{{Type: &t, Value: addr}}
}

// fresh reports whether what would be written to key differs from what was written last.
func (p *gatewayReporter) fresh(key, what string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wrote[key] == what {
		return false
	}
	p.wrote[key] = what
	return true
}

// done logs a failed write and forgets it, so that the next report writes it again.
func (p *gatewayReporter) done(key string, err error, kind, name string) {
	if err == nil {
		return
	}
	p.mu.Lock()
	delete(p.wrote, key)
	p.mu.Unlock()
	p.log.Error("update status", kind, name, "err", err)
}
