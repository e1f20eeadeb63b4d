package render

import (
	"path/filepath"
	"strconv"
)

// Layout names the files of an instance prefix. Every path the renderer writes into
// nginx.conf and every file the instance writes comes from here, so the two agree; the
// files only the instance itself opens (its conf directories, the admin socket's
// directory, nginx's stderr) are named by the nginx package on top of this.
type Layout string

// String is the prefix itself.
func (l Layout) String() string { return string(l) }

// Path is rel under the prefix.
func (l Layout) Path(rel ...string) string {
	return filepath.Join(append([]string{string(l)}, rel...)...)
}

// Socket is the admin endpoint's unix socket.
func (l Layout) Socket() string { return l.Path("admin", "admin.sock") }

// PidFile is the master's pid file.
func (l Layout) PidFile() string { return l.Path("logs", "nginx.pid") }

// ErrorLog is nginx's error log.
func (l Layout) ErrorLog() string { return l.Path("logs", "error.log") }

// AccessLog is the access log.
func (l Layout) AccessLog() string { return l.Path("logs", "access.log") }

// LuaDir holds the embedded Lua modules.
func (l Layout) LuaDir() string { return l.Path("lua") }

// Tmp is the directory of one kind of temporary file (client_body, proxy, ...).
func (l Layout) Tmp(name string) string { return l.Path("tmp", name) }

// LockFile is nginx's lock file.
func (l Layout) LockFile() string { return l.Path("logs", "nginx.lock") }

// DefaultCert and DefaultKey are the self-signed pair that the TLS listener presents
// before a server's certificate is chosen.
func (l Layout) DefaultCert() string { return l.Path("certs", "default.crt") }

// DefaultKey is DefaultCert's key.
func (l Layout) DefaultKey() string { return l.Path("certs", "default.key") }

// StreamDir holds the unix sockets between TLS passthrough's router and the listeners
// behind it. It lives where the workers can reach it: a worker connects to them.
func (l Layout) StreamDir() string { return l.Path("stream") }

// HTTPSSocket is where the terminating HTTPS listener takes the connections that TLS
// passthrough's router does not pass through.
func (l Layout) HTTPSSocket() string { return l.Path("stream", "https.sock") }

// PassthroughSocket is the socket of the i-th passthrough route.
func (l Layout) PassthroughSocket(i int) string {
	return l.Path("stream", "passthrough-"+strconv.Itoa(i)+".sock")
}

// H2CSocket is the socket of the i-th h2c router's HTTP/1.1 (version 1) or HTTP/2
// (version 2) listener.
func (l Layout) H2CSocket(i, version int) string {
	return l.Path("stream", "h2c-"+strconv.Itoa(i)+"-http"+strconv.Itoa(version)+".sock")
}

// NJSDir holds the njs scripts the stream module runs.
func (l Layout) NJSDir() string { return l.Path("njs") }

// H2CScript is the njs script that tells h2c from HTTP/1.1 by a connection's first bytes.
func (l Layout) H2CScript() string { return l.Path("njs", "h2c.js") }

// WAFAuditLog is ModSecurity's audit log: what the WAF rules found in each request.
func (l Layout) WAFAuditLog() string { return l.Path("logs", "waf-audit.log") }
