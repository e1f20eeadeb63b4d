// Package web holds restyplane's web UI: plain HTML, CSS and JavaScript modules, embedded in
// the binary so that `go build` needs no JavaScript toolchain and the UI needs no files on
// disk and nothing from the internet at run time.
package web

import (
	"embed"
	"io/fs"
)

// static is read-only and fixed at build time, so holding it at package level shares no
// mutable state.
//
//go:embed static
var static embed.FS

// ContentSecurityPolicy is the policy the server should send with the UI's files. The UI
// runs under it unchanged: no inline scripts or styles, no eval, no other origin. index.html
// also carries it in a meta element, so the UI stays strict even behind a server that
// forgets the header (a meta policy cannot set frame-ancestors, hence the header).
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; " +
	"frame-ancestors 'none'; object-src 'none'"

// Files returns the UI's files rooted at the directory that holds index.html, ready for
// http.FileServerFS. The UI uses hash routing, so every view is served by index.html at "/"
// and the server needs no fallback route.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		// fs.Sub fails only on an invalid path, and "static" is a constant that the embed
		// directive above guarantees exists.
		panic("web: " + err.Error())
	}
	return sub
}
