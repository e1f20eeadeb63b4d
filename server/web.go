package server

import (
	"io/fs"
	"net/http"

	"github.com/go-chi/chi/v5"
	httpSwagger "github.com/swaggo/http-swagger/v2"

	// The generated spec registers itself with swag, where the swagger UI reads doc.json.
	_ "github.com/restyplane/restyplane/openapi"
)

// uiCSP allows the web UI only its own scripts, styles and API: no inline script, no
// third-party origin, no framing. A value that slipped through validation into the UI
// still could not run as script.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// swaggerCSP is looser than uiCSP only where the vendored swagger UI needs it: its page
// starts the UI with an inline script and inline styles.
const swaggerCSP = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// withCSP sets a Content-Security-Policy and the headers that go with it.
func withCSP(policy string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Security-Policy", policy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "no-referrer")
			next.ServeHTTP(w, r)
		})
	}
}

// mountSwagger serves the swagger UI at /swagger/ and the spec at /swagger/doc.json.
func (s *Server) mountSwagger(r chi.Router) {
	r.Get("/swagger", http.RedirectHandler("/swagger/index.html", http.StatusMovedPermanently).ServeHTTP)
	r.With(withCSP(swaggerCSP)).Get("/swagger/*", httpSwagger.Handler(httpSwagger.URL("/swagger/doc.json")))
}

// mountUI serves the web UI's files at / under policy (uiCSP when empty), or, without a UI,
// sends / to the swagger UI.
func (s *Server) mountUI(r chi.Router, ui fs.FS, policy string) {
	if ui == nil {
		r.Get("/", http.RedirectHandler("/swagger/index.html", http.StatusFound).ServeHTTP)
		return
	}
	files := http.FileServerFS(ui)
	if policy == "" {
		policy = uiCSP
	}
	r.With(withCSP(policy)).Get("/*", files.ServeHTTP)
}
