package reconciler

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
)

// Event reasons the reconciler reports on Ingresses.
const (
	// ReasonApplied (Normal): the Ingress is translated and its objects are in the history.
	ReasonApplied = "Applied"
	// ReasonSkipped (Warning): the Ingress cannot be translated and nothing of it is applied.
	ReasonSkipped = "Skipped"
	// ReasonRefusedSnippet (Warning): the Ingress carries snippet annotations; it is skipped.
	ReasonRefusedSnippet = "RefusedSnippet"
	// ReasonConflict (Warning): part of the Ingress lost to an older Ingress or to a REST
	// object under the rules in Translate; the rest of it is applied.
	ReasonConflict = "Conflict"
	// ReasonDegraded (Warning): the Ingress is applied but something it references is
	// missing, such as a Service that does not exist yet.
	ReasonDegraded = "Degraded"
)

// Report is what a sync tells one Ingress of restyplane's class.
type Report struct {
	Ingress *networkingv1.Ingress
	// Applied is whether any route of the Ingress is in the desired state.
	Applied  bool
	Problems []Problem
}

// Problem is one Warning to report on an Ingress.
type Problem struct {
	Reason  string
	Message string
}

func (r *Report) warn(reason, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}
