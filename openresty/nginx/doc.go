// Package nginx runs one nginx instance for restyplane: it lays out the prefix, embeds
// the Lua modules that balance traffic and serve certificates from shared memory, runs
// (or adopts, or attaches to) the nginx master process and supervises it, reloads it
// safely with a confirmation from the new workers, and talks to the Lua admin endpoint
// over a unix socket. It renders with package render.
//
// The same files run on OpenResty and on Debian's nginx with libnginx-mod-http-lua,
// lua-resty-core and lua-cjson; Options says which binary, modules and Lua path to use.
package nginx
