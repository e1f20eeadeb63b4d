package nginx

import "github.com/restyplane/restyplane/openresty/render"

// layout names the files of an instance prefix: those nginx.conf names (render.Layout)
// and those only the instance opens.
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
type layout struct{ render.Layout }

func newLayout(prefix string) layout { return layout{render.Layout(prefix)} }

func (l layout) confLink() string  { return l.Path("conf") }
func (l layout) conf() string      { return l.Path("conf", "nginx.conf") }
func (l layout) confsDir() string  { return l.Path("confs") }
func (l layout) socketDir() string { return l.Path("admin") }
func (l layout) stderrLog() string { return l.Path("logs", "nginx.stderr") }

// SocketPath returns where the admin socket of the instance with prefix lives, for a
// client outside this package (a benchmark driving the bare mechanism) that must not
// hard-code the layout.
func SocketPath(prefix string) string { return render.Layout(prefix).Socket() }
