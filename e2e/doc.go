// Package e2e holds end-to-end tests: they build and start the real restyplane binary with
// a real nginx and real upstream HTTP servers, drive it only through its REST API, and
// check what a client of the proxy sees.
package e2e
