package render

import "fmt"

// ServerError is a render error that one server caused: the applier leaves that server
// out and renders the others.
type ServerError struct {
	Server string
	Err    error
}

// Error names the server.
func (e *ServerError) Error() string { return fmt.Sprintf("server %q: %v", e.Server, e.Err) }

// Unwrap is the server's own error.
func (e *ServerError) Unwrap() error { return e.Err }
