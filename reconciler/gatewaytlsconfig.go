package reconciler

import (
	"crypto/sha256"
	"fmt"
)

// tlsPolicyConfigs gives each Gateway what the BackendTLSPolicies on the Services its
// routes reach say, for its Config: a policy, or its CA certificates' ConfigMap, changes
// what the Gateway serves (its backends speak verified TLS, against which CA) without a
// new generation of the Gateway or of a route, and the Gateway is Programmed only once
// the proxy serves the revision of that change.
func (gp *gatewayPlan) tlsPolicyConfigs() map[*gatewayState][]string {
	if len(gp.tlsPolicyList) == 0 {
		return nil
	}
	through := gp.servicesThrough()
	out := map[*gatewayState][]string{}
	for _, st := range gp.tlsPolicyList {
		config := st.config()
		for g := range st.gatewaysThrough(through) {
			out[g] = append(out[g], config)
		}
	}
	return out
}

// config says what the policy makes of the backends it covers: its generation, its
// verdict, and a digest of its CA certificates, which its ConfigMaps hold.
func (st *tlsPolicyState) config() string {
	var ca [sha256.Size]byte
	if st.ca != nil {
		ca = sha256.Sum256([]byte(st.ca.Cert))
	}
	return fmt.Sprintf("%s/%s@%d %s %s %x", st.obj.Namespace, st.obj.Name, st.obj.Generation, st.acceptReason, st.refsReason, ca[:8])
}
