package render

import (
	"bytes"
	_ "embed"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/restyplane/restyplane/api"
)

//go:embed nginx.conf.tmpl
var confTemplate string

// Options are the instance facts that nginx.conf needs besides the config itself.
type Options struct {
	// Generation is reported by the workers that run this conf, so that a reload can be
	// confirmed; it may be empty for a conf that is only compared, never run.
	Generation string
	// Prefix is the instance directory (absolute).
	Prefix string
	// ProxyListen and TLSListen are host:port addresses for HTTP and HTTPS.
	ProxyListen string
	TLSListen   string
	// Modules are load_module paths; LuaPath is appended to lua_package_path.
	Modules []string
	LuaPath string
	// StreamModule is the load_module path of nginx's stream module, loaded only when a
	// server passes TLS through; empty when the binary has it built in.
	StreamModule string
	// StreamJSModule is the load_module path of njs's stream module, loaded only when a
	// plain port serves gRPC beside HTTP/1.1 (h2c.go); empty when the binary has it built in.
	StreamJSModule string
	// ModSecurityModule is the load_module path of the ModSecurity connector, loaded only
	// when a location has a WAF policy; empty when the binary has it built in.
	ModSecurityModule string
	// StubStatus serves /stub_status on the admin socket from nginx's module.
	StubStatus bool
	// User is the user directive; empty leaves nginx's default.
	User string
	// AuthAddrs are the addresses of the external auth services' host names, by name
	// (see AuthAddr); a name not in it is left to nginx.
	AuthAddrs map[string]AuthAddr
	// WorkerDir is where the files the workers open while serving live (htpasswd files,
	// temporary files); empty is the prefix.
	WorkerDir string
	// LogsToStdio sends the error log to nginx's stderr and the access log to its stdout,
	// which the instance makes the container's; otherwise both are files in logs/.
	LogsToStdio bool
	// ReusePort gives each worker a listening socket of its own on every TCP address. With
	// one socket that every worker waits on, the worker that is awake takes a burst of new
	// connections, often all of it, and clients that keep their connections (a load
	// balancer in front, a client pool) load it while the others idle. With a socket each,
	// a new connection waits for the worker its hash names, busy or not, which TLS
	// handshakes on a busy machine pay for at the tail. restyplane sets it when asked
	// (--reuse-port) and only where a reload to fewer workers loses no connection
	// (nginx.MigratesRequests).
	ReusePort bool
	// Dicts sizes the shared dicts; zero sizes them from the config's own backends and
	// certificates (SizeDicts). The applier, which renders without backends, sets it.
	Dicts DictSizes
	// ReservedPorts are ports no server may listen on as its own (the API's, where it
	// shares the host's addresses).
	ReservedPorts []int
}

var (
	generationRe = regexp.MustCompile(`^[A-Za-z0-9._:-]{0,128}$`)
	// prefixRe keeps the prefix free of what lua_package_path ('?', ';') or nginx's
	// tokenizer would read as syntax.
	prefixRe = regexp.MustCompile(`^/[A-Za-z0-9._/+=,@~-]*$`)
)

// Conf writes the nginx.conf for cfg. It is deterministic: the same config and options
// give the same bytes. Every value it writes is quoted, even though api validated it.
// Certificate files are named relative to the conf's directory (certs/<name>.crt), so a
// certificate's contents never change the conf: rotating one is a dynamic update.
func Conf(cfg api.Config, opts Options) ([]byte, error) {
	v, err := newConfView(cfg, opts)
	if err != nil {
		return nil, err
	}
	t, err := template.New("nginx.conf").Option("missingkey=error").Funcs(template.FuncMap{
		"q": quote, "qre": regexQuote, "qcap": captureQuote, "qrw": replacementQuote, "qn": nameQuote, "qadd": appendQuote, "lua": luaQuote, "qwaf": wafQuote,
		"qauth": authURLQuote, "qv": proxyHeaderQuote, "qreq": requestURIQuote, "qurl": targetQuote, "qredir": captureRedirectQuote,
		"reuse": func(addr string) string { return reusePort(opts.ReusePort, addr) },
	}).Parse(confTemplate)
	if err != nil {
		return nil, fmt.Errorf("parse nginx.conf template: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("render nginx.conf: %w", err)
	}
	return buf.Bytes(), nil
}

// reusePort is the listen parameter that gives each worker a listening socket of its own
// on a TCP address, when on (Options.ReusePort), written on the one listen directive of
// each address that may carry it (its default server's): the kernel then spreads new
// connections over the workers by a hash of their addresses. A unix socket has none.
func reusePort(on bool, addr string) string {
	if !on || strings.HasPrefix(addr, "unix:") {
		return ""
	}
	return " reuseport"
}

// checkOptions refuses options that would not make a working conf.
func checkOptions(o Options) error {
	if !generationRe.MatchString(o.Generation) {
		return fmt.Errorf("generation %q: at most 128 letters, digits, '.', '_', ':' or '-'", o.Generation)
	}
	if !filepath.IsAbs(o.Prefix) || filepath.Clean(o.Prefix) != o.Prefix || !prefixRe.MatchString(o.Prefix) {
		return fmt.Errorf("prefix %q: must be a clean absolute path of letters, digits and ._/+=,@~-", o.Prefix)
	}
	if w := o.WorkerDir; w != "" && (!filepath.IsAbs(w) || filepath.Clean(w) != w || !prefixRe.MatchString(w)) {
		return fmt.Errorf("worker directory %q: must be a clean absolute path of letters, digits and ._/+=,@~-", w)
	}
	if d := o.Dicts; d != (DictSizes{}) && (d.Backends < 1 || d.Certificates < 1) {
		return fmt.Errorf("dict sizes %+v: want at least 1 MiB each", d)
	}
	for _, l := range []string{o.ProxyListen, o.TLSListen} {
		if _, err := listenPort(l); err != nil {
			return err
		}
	}
	return nil
}

// listenPort checks a host:port listen address and returns its port.
func listenPort(addr string) (int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, fmt.Errorf("listen address %q: %w", addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || strings.ContainsAny(host, " \t;{}\"'#$") {
		return 0, fmt.Errorf("listen address %q: want host:port", addr)
	}
	return p, nil
}

// CertPaths are where the conf expects a certificate's files, relative to the conf's
// directory; nginx.Instance writes them there.
func CertPaths(name string) (cert, key string) {
	return "certs/" + name + ".crt", "certs/" + name + ".key"
}
