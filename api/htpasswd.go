package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// MaxHtpasswd bounds the lines of one htpasswd object, and MaxHtpasswdUsers their count.
const (
	MaxHtpasswd      = 256 << 10
	MaxHtpasswdUsers = 1000
)

// Htpasswd is a list of users and their password hashes for basic auth on a location, the
// htpasswd file of Apache and nginx. Like a certificate's key, Content is write-only: the
// store keeps it as a secret, the applier writes it to a 0600 file in the prefix, and
// reads, diffs, audit events and logs carry only the user names and a fingerprint.
type Htpasswd struct {
	Name string `json:"name" example:"shop-admins"`
	// Content holds "user:hash" lines. It is accepted on write and never returned; a
	// replace without it keeps the stored lines.
	Content string `json:"content,omitempty" example:"alice:$2y$05$..."`
	Source  Source `json:"source"`
	// Users are the user names of Content, in its order.
	Users []string `json:"users,omitempty" readonly:"true"`
	// Fingerprint is the SHA-256 of Content, to tell versions apart without the hashes.
	Fingerprint string `json:"fingerprint,omitempty" readonly:"true"`
	Version     int64  `json:"version,omitempty" readonly:"true"`
}

// Validate checks every line of Content against the htpasswd grammar and fills Users and
// Fingerprint from it. An empty Content is valid here (an update that keeps the stored
// lines); State.Check refuses an object that ends up without any.
func (h *Htpasswd) Validate() error {
	if err := ValidName("name", h.Name); err != nil {
		return err
	}
	if h.Content == "" {
		return h.Source.validate()
	}
	if len(h.Content) > MaxHtpasswd {
		return Invalid("content", "htpasswd content must be at most %d bytes", MaxHtpasswd)
	}
	var users []string
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(h.Content, "\n"), "\n") {
		user, hash, ok := strings.Cut(line, ":")
		if !ok {
			// The line may hold a password in clear: never quote it.
			return Invalid("content", "line %d: want user:hash", i+1)
		}
		if err := validHtpasswdUser(user); err != nil {
			return Invalid("content", "line %d: %v", i+1, err)
		}
		if err := ValidPasswordHash(hash); err != nil {
			return Invalid("content", "line %d (user %q): %v", i+1, user, err)
		}
		if seen[user] {
			return Invalid("content", "line %d: user %q appears twice", i+1, user)
		}
		seen[user] = true
		users = append(users, user)
	}
	if len(users) > MaxHtpasswdUsers {
		return Invalid("content", "at most %d users", MaxHtpasswdUsers)
	}
	h.Users = users
	sum := sha256.Sum256([]byte(h.Content))
	h.Fingerprint = hex.EncodeToString(sum[:])
	return h.Source.validate()
}

// Redacted returns a copy without Content: the only form that leaves the store for
// anything but the applier.
func (h Htpasswd) Redacted() Htpasswd {
	h.Content = ""
	return h
}

// validHtpasswdUser keeps user names to what an htpasswd file and a log line carry safely.
func validHtpasswdUser(u string) error {
	if len(u) == 0 || len(u) > 64 {
		return fmt.Errorf("user name must be 1-64 characters")
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			return fmt.Errorf("user name may hold letters, digits and ._@+- only")
		}
	}
	return nil
}

// checkHtpasswd verifies a written htpasswd has lines, and a deleted one is not in use.
func (s *State) checkHtpasswd(name string) error {
	if h := s.Htpasswds[name]; h != nil {
		if h.Content == "" {
			return Invalid("content", "htpasswd %q needs its user:hash lines", name)
		}
		return nil
	}
	for _, srv := range s.Servers {
		for _, l := range srv.Locations {
			if l.Auth != nil && l.Auth.Basic != nil && l.Auth.Basic.Htpasswd == name {
				return Errorf(EConflict, "htpasswd %q is used by server %q location %q", name, srv.Name, l.Path)
			}
		}
	}
	return nil
}

// checkAuthRefs verifies that the htpasswd objects a server's locations name exist.
func (s *State) checkAuthRefs(srv *Server) error {
	for i, l := range srv.Locations {
		if l.Auth != nil && l.Auth.Basic != nil && s.Htpasswds[l.Auth.Basic.Htpasswd] == nil {
			return Invalid(fmt.Sprintf("locations[%d].auth.basic.htpasswd", i), "htpasswd %q does not exist", l.Auth.Basic.Htpasswd)
		}
	}
	return nil
}
