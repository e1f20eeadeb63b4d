package api

import "fmt"

// Mirror sends a copy of a location's requests to a backend, as Gateway API's
// RequestMirror filter does: the copy goes with the request's own method, URI, headers and
// body, the backend's answer is discarded, and the client gets the location's own backend's
// answer.
type Mirror struct {
	Backend string `json:"backend" example:"shop-shadow"`
	// Percent is the share of requests copied, 1-100; 100 if 0.
	Percent int `json:"percent,omitempty" example:"10"`
}

// MaxMirrors bounds the mirrors of one location.
const MaxMirrors = 16

// validateMirror checks a location's mirrors: backend names, shares of 0-100, and a
// location that proxies, since one that answers itself sends no request to copy.
func (l *Location) validateMirror() error {
	if len(l.Mirror) == 0 {
		return nil
	}
	if len(l.Mirror) > MaxMirrors {
		return Invalid("mirror", "at most %d mirrors", MaxMirrors)
	}
	if l.answersItself() {
		return Invalid("mirror", "a location that answers itself sends no request to copy")
	}
	for i, m := range l.Mirror {
		f := fmt.Sprintf("mirror[%d]", i)
		if err := ValidName(f+".backend", m.Backend); err != nil {
			return err
		}
		if m.Percent < 0 || m.Percent > 100 {
			return Invalid(f+".percent", "percent must be 1-100 (0 is 100)")
		}
	}
	return nil
}

// checkMirrorRefs verifies that the backends a server's locations mirror to exist.
func (s *State) checkMirrorRefs(srv *Server) error {
	for i, l := range srv.Locations {
		for j, m := range l.Mirror {
			if s.Backends[m.Backend] == nil {
				return Invalid(fmt.Sprintf("locations[%d].mirror[%d].backend", i, j), "backend %q does not exist", m.Backend)
			}
		}
	}
	return nil
}
