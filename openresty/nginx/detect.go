package nginx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Where Debian's packages put the Lua module and its Lua libraries.
const (
	debianModuleDir = "/usr/lib/nginx/modules"
	debianLuaPath   = "/usr/share/lua/5.1/?.lua"
)

// Detect returns Options for this machine: `openresty` if it is on PATH (modules and Lua
// libraries built in), else `nginx` with Debian's NDK and Lua modules and Lua path. The
// other fields keep their defaults; the caller sets Prefix.
func Detect() Options {
	var o Options
	if p, err := exec.LookPath("openresty"); err == nil {
		o.Binary = p
	} else if p, err := exec.LookPath("nginx"); err == nil {
		o.Binary = p
	} else {
		// Keep a name so that CheckBinary can say what is missing.
		o.Binary = "nginx"
	}
	o.StubStatus = hasModule(o.Binary, "http_stub_status_module")
	if !strings.Contains(o.Binary, "openresty") && !hasModule(o.Binary, "lua-nginx-module", "ngx_lua") {
		o.Modules = []string{debianModuleDir + "/ndk_http_module.so", debianModuleDir + "/ngx_http_lua_module.so"}
		o.LuaPath = debianLuaPath
	}
	o.StreamModule = streamModule(o.Binary)
	if o.StreamModule != "" {
		// njs for a dynamic stream module is Debian's libnginx-mod-stream-js.
		o.StreamJSModule = debianModule("ngx_stream_js_module.so")
	}
	o.ModSecurityModule = debianModule("ngx_http_modsecurity_module.so")
	return o.withDefaults()
}

// MigrateReqSysctl is where the kernel says, for this network namespace, whether it hands
// the connections waiting on a closing listening socket to another socket of the same
// port (Linux 5.14 and later; 0 by default).
const MigrateReqSysctl = "/proc/sys/net/ipv4/tcp_migrate_req"

// MigratesRequests reports whether the sysctl at path (MigrateReqSysctl) is on. Options'
// ReusePort is safe only then: a reload to fewer workers closes the sockets of the
// workers it removes, and without the kernel's hand-over the connections waiting on them
// to be accepted are reset.
func MigratesRequests(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.TrimSpace(string(b)) == "1"
}

// streamModule returns the stream module to load for TLS passthrough: none when the
// binary has it built in (`--with-stream`, as OpenResty), Debian's libnginx-mod-stream
// when it is dynamic there and installed, none otherwise (a passthrough conf then fails
// nginx -t, saying "unknown directive stream").
func streamModule(binary string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, binary, "-V").CombinedOutput()
	for _, f := range strings.Fields(string(out)) {
		if f == "--with-stream" {
			return ""
		}
	}
	return debianModule("ngx_stream_module.so")
}

// debianModule is the path of a module that one of Debian's libnginx-mod-* packages put
// in place, "" when it is not installed.
func debianModule(name string) string {
	m := debianModuleDir + "/" + name
	if _, err := os.Stat(m); err != nil {
		return ""
	}
	return m
}

// CheckBinary fails with a message that says what to install when the binary or one of
// the modules is missing.
func (o Options) CheckBinary() error {
	if _, err := exec.LookPath(o.Binary); err != nil {
		return fmt.Errorf("nginx binary %q not found (install nginx-light and libnginx-mod-http-lua, or OpenResty; hack/install.sh does it): %w", o.Binary, err)
	}
	for _, m := range o.Modules {
		if _, err := os.Stat(m); err != nil {
			return fmt.Errorf("nginx module %s missing (install libnginx-mod-http-lua; hack/install.sh does it): %w", m, err)
		}
	}
	return nil
}

// hasModule reports whether `binary -V` mentions one of the names, which is how nginx
// lists what it was built with.
func hasModule(binary string, names ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "-V").CombinedOutput()
	if err != nil {
		return false
	}
	for _, n := range names {
		if strings.Contains(string(out), n) {
			return true
		}
	}
	return false
}
