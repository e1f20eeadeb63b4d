package nginx

import (
	"log/slog"
	"os"
	"time"

	"github.com/restyplane/restyplane/openresty/render"
)

// Options say where and how an nginx instance runs. Detect fills the machine-dependent
// fields; the cmd layer turns each field into a flag so that every default can be
// overridden.
type Options struct {
	// Binary is the nginx or openresty executable.
	Binary string
	// Modules are dynamic modules to load_module, in order (Debian needs the NDK and the
	// Lua module; OpenResty has them built in).
	Modules []string
	// LuaPath is appended to lua_package_path after the instance's own modules, for
	// lua-resty-core and cjson when they live outside the binary's default path.
	LuaPath string
	// StreamModule is the stream module to load when a server passes TLS through; empty
	// when the binary has it built in.
	StreamModule string
	// StreamJSModule is njs's stream module (Debian's libnginx-mod-stream-js), loaded when
	// a plain port serves gRPC beside HTTP/1.1; empty when the binary has it built in.
	StreamJSModule string
	// ModSecurityModule is the ModSecurity connector to load when a location has a WAF
	// policy (Debian's libnginx-mod-http-modsecurity).
	ModSecurityModule string
	// StubStatus says whether the binary has the stub_status module; without it the admin
	// endpoint answers /stub_status from its own counters.
	StubStatus bool
	// ReusePort gives each worker a listening socket of its own (render.Options.ReusePort).
	ReusePort bool

	// Prefix is the instance directory: conf, Lua modules, certificates, logs and the admin
	// socket live under it. It must be an absolute path.
	Prefix string
	// ProxyListen and TLSListen are the addresses servers listen on for HTTP and HTTPS.
	ProxyListen string
	TLSListen   string
	// ReservedPorts are ports no server may take as its own (api.Server.Port): the ports
	// restyplane itself listens on, beside nginx.
	ReservedPorts []int
	// User is the user nginx workers run as when the master runs as root; empty keeps
	// nginx's compiled-in default (usually nobody). Workers need to traverse the prefix
	// (mode 0711 is enough) to reach their temporary files.
	User string
	// WorkerDir holds what the workers open while they serve (htpasswd files, temporary
	// files); empty is the prefix. NewInstance chooses a directory the workers can reach
	// when they run as User and cannot pass through the prefix's parents.
	WorkerDir string

	// StartTimeout bounds how long Start and a supervised restart wait for the admin
	// endpoint to answer.
	StartTimeout time.Duration
	// StopTimeout is how long a graceful stop (QUIT) may take before KILL.
	StopTimeout time.Duration
	// ReloadTimeout bounds how long Reload waits for workers of the new generation.
	ReloadTimeout time.Duration
	// KeepRunning makes Stop leave a managed nginx running, for an upgrade or a restart
	// of restyplane that must not cost a request: the next Start adopts it.
	KeepRunning bool
	// MaxBackoff caps the delay between restarts of a master that keeps dying.
	MaxBackoff time.Duration
	// CountersWithPush makes each backend push ask for the backend counters in its answer,
	// counted in the pushed version's epoch, and the next Counters of that epoch return
	// them instead of reading again. An agent reports the counters after every apply:
	// the second round trip into a worker cost every agent and its nginx CPU on every
	// change. serve leaves it off: its rollback watcher reads the counters and moves the epoch
	// itself.
	CountersWithPush bool
	// LogsTo, when set, takes nginx's stdout and stderr, and with them its error and
	// access logs: the container convention, where the runtime keeps and rotates them and
	// the data directory is a small emptyDir. Unset, they are files in <prefix>/logs,
	// rotated past MaxLogBytes.
	LogsTo *os.File
	// MaxLogBytes caps each log file in <prefix>/logs: past it the file is renamed to
	// <name>.1 (replacing the one before) and nginx reopens its logs. 0 means 64 MiB.
	MaxLogBytes int64
	// LogCheckEvery is how often the log files' sizes are looked at; 0 means 10 s.
	LogCheckEvery time.Duration
	// Logger receives the supervisor's messages (with nginx's last stderr lines when it
	// exits); nil discards them.
	Logger *slog.Logger
}

// withDefaults fills the zero durations and the logger.
func (o Options) withDefaults() Options {
	if o.ProxyListen == "" {
		o.ProxyListen = "127.0.0.1:8080"
	}
	if o.TLSListen == "" {
		o.TLSListen = "127.0.0.1:8443"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = 10 * time.Second
	}
	if o.ReloadTimeout == 0 {
		o.ReloadTimeout = 10 * time.Second
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 5 * time.Second
	}
	if o.MaxLogBytes == 0 {
		o.MaxLogBytes = 64 << 20
	}
	if o.LogCheckEvery == 0 {
		o.LogCheckEvery = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// RenderOptions returns what render.Conf needs to write a conf for this instance.
func (o Options) RenderOptions(generation string) render.Options {
	o = o.withDefaults()
	return render.Options{
		Generation:        generation,
		Prefix:            o.Prefix,
		ProxyListen:       o.ProxyListen,
		TLSListen:         o.TLSListen,
		Modules:           o.Modules,
		LuaPath:           o.LuaPath,
		StreamModule:      o.StreamModule,
		StreamJSModule:    o.StreamJSModule,
		ModSecurityModule: o.ModSecurityModule,
		StubStatus:        o.StubStatus,
		ReservedPorts:     o.ReservedPorts,
		User:              o.User,
		WorkerDir:         o.WorkerDir,
		LogsToStdio:       o.LogsTo != nil,
		ReusePort:         o.ReusePort,
	}
}
