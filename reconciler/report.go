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
	// ReasonRefusedAnnotation (Warning): the Ingress carries an annotation that restricts
	// access or protects traffic and that restyplane does not implement; it is skipped.
	ReasonRefusedAnnotation = "RefusedAnnotation"
	// ReasonIgnoredAnnotation (Normal): the Ingress is served without an annotation that
	// restyplane does not implement and that protects nothing.
	ReasonIgnoredAnnotation = "IgnoredAnnotation"
	// ReasonUnknownAnnotation (Warning): the Ingress carries an annotation under
	// ingress-nginx's prefix that ingress-nginx never had (a typo, as a rule), which
	// ingress-nginx ignored; it is served without it, and told which one was likely meant.
	ReasonUnknownAnnotation = "UnknownAnnotation"
	// ReasonHostClaimed (Warning): the Ingress names a hostname that another namespace or
	// the REST API holds; it is skipped.
	ReasonHostClaimed = "HostClaimed"
	// ReasonTLSRefused (Warning): a TLS entry names a host outside the Ingress's rules, or
	// its certificate does not cover its hosts; the entry is skipped.
	ReasonTLSRefused = "TLSRefused"
	// ReasonLimitExceeded (Warning): the Ingress alone goes over a limit (locations on a
	// host); it is skipped, and the others on its hosts are not.
	ReasonLimitExceeded = "LimitExceeded"
	// ReasonRefusedExternalName (Warning): the Ingress routes to an ExternalName Service,
	// which is refused unless enabled, and always when it names this machine or metadata.
	ReasonRefusedExternalName = "RefusedExternalName"
)

// Report is what a sync tells one Ingress of restyplane's class.
type Report struct {
	Ingress *networkingv1.Ingress
	// Applied is whether any route of the Ingress is in the desired state.
	Applied  bool
	Problems []Problem
	// Notes are said as Normal Events: what the Ingress is served without.
	Notes []Problem
	// Ours is false for an Ingress of another class, evaluated for GET
	// /api/v1/kubernetes/ingresses only.
	Ours bool
}

// Problem is one Warning to report on an Ingress.
type Problem struct {
	Reason  string
	Message string
}

func (r *Report) warn(reason, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (r *Report) note(reason, format string, args ...any) {
	r.Notes = append(r.Notes, Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}
