package reconciler

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// BackendTLSPolicy (policies): a policy names Services (and a port of each by its name,
// sectionName) whose endpoints the proxy speaks TLS to, verified against the CA
// certificates of ConfigMaps of its namespace, for its hostname, which is sent as SNI.
// It becomes the upstream TLS of the route backends of those Service ports, which is
// what the Ingresses' proxy-ssl-* annotations give their backends too.

// tlsPolicyState is what a sync makes of one BackendTLSPolicy.
type tlsPolicyState struct {
	obj *gatewayv1.BackendTLSPolicy
	// acceptReason is "" when the policy is accepted; refsReason "" when its CA
	// certificates resolve.
	acceptReason, refsReason gatewayv1.PolicyConditionReason
	acceptMsg, refsMsg       string
	// tls is what the backends it covers get, nil when they cannot be verified as it
	// asks: requests to them then answer 500, never in plain HTTP.
	tls *api.UpstreamTLS
	ca  *api.CACertificate
}

// policyTarget is a Service ("namespace/name") and one port's name, "" for all its ports.
type policyTarget struct{ service, section string }

// planTLSPolicies checks every BackendTLSPolicy and gives each target to the oldest
// policy that names it (then the first by namespace/name, as the spec says): a policy
// one of whose targets an older one holds is Conflicted and covers none.
func (gp *gatewayPlan) planTLSPolicies() {
	ps := append([]*gatewayv1.BackendTLSPolicy(nil), gp.snap.TLSPolicies...)
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	gp.tlsPolicies = map[policyTarget]*tlsPolicyState{}
	for _, p := range ps {
		st := gp.planTLSPolicy(p)
		gp.tlsPolicyList = append(gp.tlsPolicyList, st)
		targets := policyTargets(p)
		for _, t := range targets {
			if o := gp.tlsPolicies[t]; o != nil {
				st.acceptReason, st.acceptMsg = gatewayv1.PolicyReasonConflicted,
					fmt.Sprintf("BackendTLSPolicy %s, older, already covers Service %s%s", o.obj.Name, t.service, sectionPhrase(t.section))
				st.tls = nil
			}
		}
		if st.acceptReason == gatewayv1.PolicyReasonConflicted {
			continue
		}
		for _, t := range targets {
			gp.tlsPolicies[t] = st
		}
	}
}

// policyTargets lists the Services a policy names, with their sectionName.
func policyTargets(p *gatewayv1.BackendTLSPolicy) []policyTarget {
	var out []policyTarget
	for _, r := range p.Spec.TargetRefs {
		if (r.Group == "" || r.Group == "core") && r.Kind == "Service" {
			t := policyTarget{service: p.Namespace + "/" + string(r.Name)}
			if r.SectionName != nil {
				t.section = string(*r.SectionName)
			}
			out = append(out, t)
		}
	}
	return out
}

func sectionPhrase(s string) string {
	if s == "" {
		return ""
	}
	return " port " + s
}

// planTLSPolicy checks one policy on its own: its CA certificates and what it asks that
// restyplane does not verify (subjectAltNames, wellKnownCACertificates), which it refuses
// rather than verify less than asked.
func (gp *gatewayPlan) planTLSPolicy(p *gatewayv1.BackendTLSPolicy) *tlsPolicyState {
	st := &tlsPolicyState{obj: p, refsReason: gatewayv1.BackendTLSPolicyReasonResolvedRefs,
		acceptMsg: "the proxy verifies the backends' certificates as the policy asks"}
	v := p.Spec.Validation
	var pems []string
	for i, ref := range v.CACertificateRefs {
		what := fmt.Sprintf("caCertificateRefs[%d] (%s %s)", i, ref.Kind, ref.Name)
		if !isConfigMapRef(ref) {
			st.refused(gatewayv1.BackendTLSPolicyReasonInvalidKind, fmt.Sprintf("%s is not a core ConfigMap, the one kind restyplane reads CA certificates from", what))
			continue
		}
		cm := gp.snap.ConfigMaps[p.Namespace+"/"+string(ref.Name)]
		pem, why := configMapCA(cm)
		if why != "" {
			st.refused(gatewayv1.BackendTLSPolicyReasonInvalidCACertificateRef, what+": "+why)
			continue
		}
		pems = append(pems, strings.TrimSpace(pem)+"\n")
	}
	switch {
	case len(v.SubjectAltNames) > 0:
		st.acceptReason, st.acceptMsg = gatewayv1.PolicyReasonInvalid,
			"subjectAltNames are not verified by restyplane (nginx verifies one name, the hostname, which the spec forbids with subjectAltNames); requests to the backends answer 500"
		return st
	case v.WellKnownCACertificates != nil && *v.WellKnownCACertificates != "":
		st.acceptReason, st.acceptMsg = gatewayv1.PolicyReasonInvalid,
			fmt.Sprintf("wellKnownCACertificates %q is not served: name a ConfigMap with the CA certificates in caCertificateRefs; requests to the backends answer 500", *v.WellKnownCACertificates)
		return st
	case len(pems) == 0:
		st.acceptReason, st.acceptMsg = gatewayv1.BackendTLSPolicyReasonNoValidCACertificate,
			"no caCertificateRef resolves to a CA certificate: requests to the backends answer 500"
		return st
	case st.refsReason != gatewayv1.BackendTLSPolicyReasonResolvedRefs:
		st.acceptMsg = "some caCertificateRefs do not resolve: requests to the backends answer 500 until they all do"
		return st
	}
	st.ca = &api.CACertificate{Name: objectName("backendtlspolicy." + p.Namespace + "." + p.Name), Cert: strings.Join(pems, ""),
		Source: api.Source{Kind: api.SourceKubernetes, Object: api.ObjectBackendTLSPolicy, Namespace: p.Namespace, Name: p.Name, UID: string(p.UID)}}
	if err := st.ca.Validate(); err != nil {
		st.ca = nil
		st.refused(gatewayv1.BackendTLSPolicyReasonInvalidCACertificateRef, fmt.Sprintf("the CA certificates: %v", err))
		st.acceptReason, st.acceptMsg = gatewayv1.BackendTLSPolicyReasonNoValidCACertificate, "the CA certificates do not make a CA bundle: requests to the backends answer 500"
		return st
	}
	if len(p.Spec.Options) > 0 {
		st.acceptMsg += "; its options are not read"
	}
	st.tls = &api.UpstreamTLS{Verify: true, CACertificate: st.ca.Name, ServerName: string(v.Hostname), SNI: true}
	return st
}

// refused records a caCertificateRef that does not resolve; the first reason stays.
func (st *tlsPolicyState) refused(reason gatewayv1.PolicyConditionReason, msg string) {
	if st.refsReason == gatewayv1.BackendTLSPolicyReasonResolvedRefs {
		st.refsReason, st.refsMsg = reason, msg
		return
	}
	st.refsMsg += "; " + msg
}

// configMapCA returns the ca.crt of a ConfigMap, or why there is none.
func configMapCA(cm *corev1.ConfigMap) (string, string) {
	switch {
	case cm == nil:
		return "", "the ConfigMap does not exist"
	case strings.TrimSpace(cm.Data[caCertKey]) == "":
		return "", "the ConfigMap has no " + caCertKey
	}
	c := &api.CACertificate{Name: "check", Cert: cm.Data[caCertKey]}
	if err := c.Validate(); err != nil {
		return "", fmt.Sprintf("its %s is not a CA certificate: %v", caCertKey, err)
	}
	return cm.Data[caCertKey], ""
}

// policyFor returns the policy that covers port of the Service key: the one naming that
// port, else the one naming the whole Service; nil when none does.
func (gp *gatewayPlan) policyFor(key string, port int32) *tlsPolicyState {
	if len(gp.tlsPolicies) == 0 {
		return nil
	}
	if svc := gp.whole.Services[key]; svc != nil {
		for _, sp := range svc.Spec.Ports {
			if sp.Port == port && sp.Name != "" {
				if st := gp.tlsPolicies[policyTarget{key, sp.Name}]; st != nil {
					return st
				}
			}
		}
	}
	return gp.tlsPolicies[policyTarget{key, ""}]
}
