package nginx

// WriteLua writes restyplane's Lua modules under dir, for tests that run them in an nginx
// of their own.
var WriteLua = writeLua
