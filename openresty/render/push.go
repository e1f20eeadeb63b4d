package render

import "github.com/restyplane/restyplane/api"

// Push is one dynamic update.
type Push struct {
	Backends        []api.Backend     `json:"backends,omitempty"`
	DeletedBackends []string          `json:"deletedBackends,omitempty"`
	Certificates    []api.Certificate `json:"certificates,omitempty"`
	DeletedCerts    []string          `json:"deletedCertificates,omitempty"`
	// Policies are locations' access lists and limits, which change without
	// a reload; DeletedPolicies are the names of those gone.
	Policies        []LocationPolicy `json:"policies,omitempty"`
	DeletedPolicies []string         `json:"deletedPolicies,omitempty"`
	// Full replaces everything the instance holds, after it restarted.
	Full bool `json:"full,omitempty"`
}

// Empty reports whether the push carries nothing.
func (p Push) Empty() bool {
	return !p.Full && len(p.Backends)+len(p.DeletedBackends)+len(p.Certificates)+len(p.DeletedCerts)+
		len(p.Policies)+len(p.DeletedPolicies) == 0
}
