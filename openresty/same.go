package openresty

import "github.com/restyplane/restyplane/api"

// sameCACertificates reports whether two states hold the same CA bundle versions, and so
// name the same files in their confs.
func sameCACertificates(a, b *api.State) bool {
	if len(a.CACertificates) != len(b.CACertificates) {
		return false
	}
	for name, c := range b.CACertificates {
		if r := a.CACertificates[name]; r == nil || r.Version != c.Version {
			return false
		}
	}
	return true
}

// sameHtpasswds reports whether two states hold the same htpasswd versions, and so name
// the same htpasswd files in their confs.
func sameHtpasswds(a, b *api.State) bool {
	if len(a.Htpasswds) != len(b.Htpasswds) {
		return false
	}
	for name, h := range b.Htpasswds {
		if r := a.Htpasswds[name]; r == nil || r.Version != h.Version {
			return false
		}
	}
	return true
}
