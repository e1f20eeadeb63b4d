// Package render turns an api.Config into what OpenResty runs: the nginx.conf (from the
// embedded template, every value quoted) and the dynamic push of backends, certificates
// and location policies that the Lua modules hold in shared memory. It is pure: it
// starts no process and writes no file, so its tests need no nginx. The paths it writes
// into nginx.conf come from Layout, which the nginx package shares.
package render
