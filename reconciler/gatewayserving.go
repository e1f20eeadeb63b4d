package reconciler

import (
	"context"
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// Served is the optional part of a Store that says what the proxy serves. A Gateway is
// Programmed once the proxy serves the revision that last changed what the Gateway
// serves; with a Store that cannot say, as soon as that revision is written.
type Served interface {
	ServedRevision(ctx context.Context) (Serving, error)
}

// Serving is what the proxy serves: the revision it runs, what of it the proxy left out,
// and the newest revision after it that it tried and did not apply.
type Serving struct {
	Revision int64
	// Skipped are the objects of Revision the proxy serves it without (nginx refused a
	// server, a shared dict had no room), each with the instances that left it out and
	// why: "edge-1, edge-2: nginx's reason". An object a later retry applied is not in it.
	Skipped map[api.Ref]string
	// Failed is the newest revision after Revision whose apply did not succeed, 0 when
	// none; Outcome is that apply's (api.OutcomeRejected, OutcomeFailed or
	// OutcomeRolledBack) and Error its reason, nginx's own text for a rejection.
	Failed  int64
	Outcome string
	Error   string
}

// programmed is what became of the revision a Gateway waits for, as its Programmed
// condition and its listeners' say it.
type programmed struct {
	served bool
	// reason and msg are the condition's when not served: Pending while the revision
	// is on its way or tried again, Invalid once it will not be (nginx refused it, or
	// it was rolled back), until a later revision brings the change again.
	reason gatewayv1.GatewayConditionReason
	msg    string
}

// of is what became of revision rev.
func (s Serving) of(rev int64) programmed {
	if s.Revision < 0 || s.Revision >= rev {
		return programmed{served: true}
	}
	if s.Failed < rev {
		return programmed{reason: gatewayv1.GatewayReasonPending, msg: fmt.Sprintf("waiting for the proxy to serve revision %d", rev)}
	}
	reason, what := gatewayv1.GatewayReasonInvalid, "nginx refused it"
	switch s.Outcome {
	case api.OutcomeRolledBack:
		what = "it went live, made the proxy unhealthy, and was rolled back"
	case api.OutcomeFailed:
		reason, what = gatewayv1.GatewayReasonPending, "its apply failed and is tried again"
	}
	return programmed{reason: reason, msg: truncateCondition(fmt.Sprintf(
		"revision %d holds what the Gateway serves since revision %d, and %s; the proxy serves revision %d: %s",
		s.Failed, rev, what, s.Revision, s.Error))}
}

// leftOut is what became of objects, the servers and certificates a Gateway makes, in the
// revision the proxy serves: not served, Invalid, while it serves the revision without
// any of them. Nothing in the Gateway's own objects is wrong, yet clients of its
// listeners do not reach what it serves; the condition names the objects, the instances
// that left them out and why (objects left out for the same reason together), until an
// apply serves them (a retry, or a change to them). A backend left out (its name does not
// resolve yet) is its routes' trouble, not the listeners'.
func (s Serving) leftOut(objects []api.Ref) programmed {
	var whys []string
	names := map[string][]string{}
	n := 0
	for _, ref := range objects {
		why, ok := s.Skipped[ref]
		if !ok || (ref.Kind != api.KindServer && ref.Kind != api.KindCertificate) {
			continue
		}
		if n++; n > heldShown {
			continue
		}
		if names[why] == nil {
			whys = append(whys, why)
		}
		names[why] = append(names[why], ref.Kind+" "+ref.Name)
	}
	if n == 0 {
		return programmed{served: true}
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%s (left out by %s)", strings.Join(names[why], ", "), why)
	}
	msg := fmt.Sprintf("the proxy serves revision %d without %s", s.Revision, strings.Join(parts, "; "))
	if n > heldShown {
		msg += fmt.Sprintf("; and %d more", n-heldShown)
	}
	return programmed{reason: gatewayv1.GatewayReasonInvalid, msg: truncateCondition(msg)}
}
