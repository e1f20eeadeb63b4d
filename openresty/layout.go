package openresty

import "path/filepath"

// layout names the files of an instance prefix. Every path the renderer writes into
// nginx.conf and every file the instance writes comes from here, so the two agree.
//
// The conf lives in a directory of its own, <prefix>/confs/<n>, with the certificate files
// it names; <prefix>/conf is a symlink to the one that runs. nginx resolves the conf's
// relative certificate paths against the directory of the conf file, so swapping the
// symlink swaps the conf and its certificates in one atomic rename, and the previous
// directory stays for a restore.
//
// The admin socket lives in <prefix>/admin, a directory of mode 0700 made before nginx
// starts: nginx creates unix sockets world-writable (0666), and only the directory keeps
// other local users from driving the proxy from the moment the socket exists. Workers
// never open the path: they accept on the socket the master bound and passed down, so
// they need no access to the directory when they run as --nginx-user.
type layout string

func (l layout) path(rel ...string) string {
	return filepath.Join(append([]string{string(l)}, rel...)...)
}

func (l layout) confLink() string       { return l.path("conf") }
func (l layout) conf() string           { return l.path("conf", "nginx.conf") }
func (l layout) confsDir() string       { return l.path("confs") }
func (l layout) socketDir() string      { return l.path("admin") }
func (l layout) socket() string         { return l.path("admin", "admin.sock") }
func (l layout) stderrLog() string      { return l.path("logs", "nginx.stderr") }
func (l layout) pidFile() string        { return l.path("logs", "nginx.pid") }
func (l layout) errorLog() string       { return l.path("logs", "error.log") }
func (l layout) accessLog() string      { return l.path("logs", "access.log") }
func (l layout) luaDir() string         { return l.path("lua") }
func (l layout) tmp(name string) string { return l.path("tmp", name) }
func (l layout) lockFile() string       { return l.path("logs", "nginx.lock") }
func (l layout) defaultCert() string    { return l.path("certs", "default.crt") }
func (l layout) defaultKey() string     { return l.path("certs", "default.key") }

// SocketPath returns where the admin socket of the instance with prefix lives, for a
// client outside this package (a benchmark driving the bare mechanism) that must not
// hard-code the layout.
func SocketPath(prefix string) string { return layout(prefix).socket() }
