package api

import (
	"regexp"
	"time"
)

// How a namespace came to hold a hostname.
const (
	// HostnameClaimed: an Ingress of the namespace named the hostname first. The claim
	// ends when no Ingress of the namespace names it any more.
	HostnameClaimed = "claim"
	// HostnameGranted: an admin granted the hostname to the namespace. The grant ends only
	// when an admin releases it.
	HostnameGranted = "grant"
)

// Audit actions of hostname claims.
const (
	AuditHostnameGrant   = "hostname_grant"
	AuditHostnameRelease = "hostname_release"
	AuditHostnameClaims  = "hostname_claims"
)

// HostnameClaim says which Kubernetes namespace holds a hostname: only Ingresses of that
// namespace may route it, and no REST server may name it.
type HostnameClaim struct {
	Hostname  string    `json:"hostname" example:"shop.example.com"`
	Namespace string    `json:"namespace" example:"shop"`
	Since     time.Time `json:"since"`
	How       string    `json:"how" enums:"claim,grant" example:"claim"`
}

// HostnameGrant is the body of PUT /api/v1/kubernetes/hostnames/{hostname}.
type HostnameGrant struct {
	Namespace string `json:"namespace" example:"shop"`
}

// namespaceRe is a Kubernetes namespace name: an RFC 1123 label.
var namespaceRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidNamespace checks a Kubernetes namespace name.
func ValidNamespace(field, s string) error {
	if !namespaceRe.MatchString(s) {
		return Invalid(field, "must be a Kubernetes namespace name: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit")
	}
	return nil
}

// Verdicts of an Ingress and of each of its annotations.
const (
	VerdictServed   = "served"
	VerdictRefused  = "refused"
	VerdictHonoured = "honoured"
	VerdictIgnored  = "ignored"
	// VerdictTranslated: a snippet annotation whose every directive became a typed field;
	// an Ingress served with one is translated rather than served.
	VerdictTranslated = "translated"
)

// IngressVerdict is what restyplane does, or would do, with one Ingress: the answer a
// team reads before it moves an Ingress to restyplane's class.
type IngressVerdict struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Class is the Ingress's class ("" when it names none).
	Class string `json:"class"`
	// Ours is whether restyplane serves the class; for other classes the verdict says what
	// would happen if the Ingress moved over.
	Ours bool `json:"ours"`
	// Verdict is served when any route of the Ingress is (or would be) in the desired
	// state, translated when it is and a snippet annotation of it was translated into
	// typed fields (its annotation's why says what each directive became), refused
	// otherwise; Problems say why, or what of a served one is left out.
	Verdict     string              `json:"verdict" enums:"served,translated,refused"`
	Problems    []IngressProblem    `json:"problems"`
	Annotations []AnnotationVerdict `json:"annotations"`
}

// IngressProblem is one thing reported on an Ingress, as in its Events.
type IngressProblem struct {
	Reason  string `json:"reason" example:"HostClaimed"`
	Message string `json:"message"`
}

// AnnotationVerdict is what restyplane does with one annotation.
type AnnotationVerdict struct {
	Name    string `json:"name" example:"nginx.ingress.kubernetes.io/auth-url"`
	Value   string `json:"value"`
	Verdict string `json:"verdict" enums:"honoured,translated,refused,ignored"`
	Why     string `json:"why,omitempty"`
}

// RouteVerdict is what restyplane does with one Gateway API route (HTTPRoute, GRPCRoute)
// whose parentRefs name a Gateway of its classes.
type RouteVerdict struct {
	Kind      string `json:"kind" enums:"HTTPRoute,GRPCRoute" example:"HTTPRoute"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Verdict is served when a location of the route is in the desired state, refused
	// otherwise; Problems say why, or what of a served one is left out.
	Verdict  string           `json:"verdict" enums:"served,refused"`
	Problems []IngressProblem `json:"problems"`
}

// IngressVerdicts is the answer of GET /api/v1/kubernetes/ingresses.
type IngressVerdicts struct {
	// Revision is the head revision the last sync compared the cluster with.
	Revision  int64            `json:"revision"`
	Ingresses []IngressVerdict `json:"ingresses"`
	// Routes are the Gateway API routes of restyplane's Gateways, beside the Ingresses:
	// they share their hostnames' claims.
	Routes []RouteVerdict `json:"routes"`
}
