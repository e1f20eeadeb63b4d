package server

import (
	"io/fs"
	"net/http"

	"github.com/go-chi/chi/v5"
	swaggerFiles "github.com/swaggo/files/v2"

	"github.com/restyplane/restyplane/openapi"
)

// uiCSP allows the web UI only its own scripts, styles and API: no inline script, no
// third-party origin, no framing. A value that slipped through validation into the UI
// still could not run as script.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// swaggerCSP is looser than uiCSP only where the vendored swagger UI needs it: it sets
// inline styles. Its scripts are all files, swaggerInit too.
const swaggerCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// swaggerInit replaces the swagger UI's own swagger-initializer.js, which opens an example
// spec on the internet, with one that opens restyplane's.
const swaggerInit = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/swagger/doc.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`

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
	r.Route("/swagger", func(r chi.Router) {
		r.Use(withCSP(swaggerCSP))
		// Both /swagger and /swagger/ come here.
		r.Get("/", http.RedirectHandler("/swagger/index.html", http.StatusMovedPermanently).ServeHTTP)
		r.Get("/doc.json", serveBytes("application/json", openapi.JSON))
		r.Get("/swagger-initializer.js", serveBytes("text/javascript; charset=utf-8", []byte(swaggerInit)))
		// The file server would answer index.html with a redirect to the directory.
		index, _ := fs.ReadFile(swaggerFiles.FS, "index.html")
		r.Get("/index.html", serveBytes("text/html; charset=utf-8", index))
		r.Get("/*", http.StripPrefix("/swagger/", http.FileServerFS(swaggerFiles.FS)).ServeHTTP)
	})
}

// serveBytes answers with b, which is built in: it changes only with the binary.
func serveBytes(contentType string, b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
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
