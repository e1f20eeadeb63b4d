package server

import (
	"net/http"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// The helpers below serve what backends, servers and certificates have in common: they
// are named objects in the head state, listed, fetched with an ETag and deleted alike.

// listObjects returns the objects whose name contains q, sorted by name, each through view.
func listObjects[T any](m map[string]*T, q string, view func(*T) T) []T {
	names := make([]string, 0, len(m))
	for name := range m {
		if strings.Contains(name, q) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	items := make([]T, 0, len(names))
	for _, name := range names {
		items = append(items, view(m[name]))
	}
	return items
}

// getObject answers GET of one named object with its ETag (and 304 for a client that has
// this version).
func getObject[T any](w http.ResponseWriter, r *http.Request, m map[string]*T, kind string, version func(*T) int64, view func(*T) T) error {
	name := chi.URLParam(r, "name")
	obj, ok := m[name]
	if !ok {
		return api.Errorf(api.ENotFound, "%s %q does not exist", kind, printable(name))
	}
	v := version(obj)
	if done, err := conditionalGet(w, r, v); done || err != nil {
		return err
	}
	w.Header().Set("ETag", etag(v))
	writeJSON(w, http.StatusOK, view(obj))
	return nil
}

// deleteObject deletes the named object of kind.
func (s *Server) deleteObject(w http.ResponseWriter, r *http.Request, kind string) error {
	meta, err := writeMeta(r, "")
	if err != nil {
		return err
	}
	mut := api.Mutation{Kind: kind, Name: chi.URLParam(r, "name"), Delete: true}
	return s.objectWrite(w, r, meta, mut, "")
}

// same returns a copy of the object, for lists and GETs of objects without secrets.
func same[T any](p *T) T { return *p }
