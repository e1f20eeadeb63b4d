// Package openresty is restyplane's data plane: it renders nginx.conf from an api.Config,
// embeds the Lua modules that balance traffic and serve certificates from shared memory,
// runs (or attaches to) the nginx master process, reloads it safely, and talks to the Lua
// admin endpoint over a unix socket.
//
// The same files run on OpenResty and on Debian's nginx with libnginx-mod-http-lua,
// lua-resty-core and lua-cjson; Options says which binary, modules and Lua path to use.
package openresty
