-- restyplane.drain asks HTTP/1 clients to close their kept-alive connections while a reload
-- replaces nginx's workers. An old worker that starts its graceful shutdown closes its idle
-- kept-alive connections at once: a client that got its last answer with "Connection:
-- keep-alive" and sends its next request at that moment meets a closed socket. (Answers the
-- worker writes after that moment say "close" on their own.) While the flag is up, every
-- answer tells the client to close instead, so no client has a request on its way to a
-- connection the worker is about to close.
--
-- nginx 1.22 has no keepalive_min_timeout and the Lua module no way to clear r->keepalive,
-- so nginx still writes its own "Connection: keep-alive" before ours: the answer carries
-- both, and a "close" option among them makes HTTP/1.1 clients close (RFC 9112 9.6); nginx
-- keeps its end open until the client closes or keepalive_timeout passes.
--
-- The flag lives in a shared dict, which every worker sees and which survives reloads, with
-- an expiry so that an applier that dies mid-reload never leaves the proxy draining.
--
-- A proxied request learns of the flag for free: the balancer reads its backend's version
-- key ("v:<name>", restyplane.versioned) on every request anyway, and set marks every
-- version key with the user flag FLAG, which that same read returns. Only a request whose
-- version key carries it reads the flag itself (its expiry). The answers nginx makes
-- without a balancer are marked by header_filter, where the conf runs it.
local dict = ngx.shared.restyplane_backends

local _M = {}

-- KEY sits beside backends.lua's "meta:version", outside its "v:" and "b:" names.
local KEY = "meta:drain"

-- FLAG is the user flag of the version keys while the flag is up.
_M.FLAG = 1

-- mark_versions gives every version key the user flags f, keeping its value.
local function mark_versions(f)
    for _, k in ipairs(dict:get_keys(0)) do
        if k:sub(1, 2) == "v:" then
            local v, old = dict:get(k)
            if v ~= nil and (old or 0) ~= f then
                dict:set(k, v, 0, f)
            end
        end
    end
end

-- set raises the flag for seconds at most; its value is the time it ends.
function _M.set(seconds)
    local ok, err = dict:safe_set(KEY, ngx.now() + seconds, seconds)
    if not ok then
        return nil, "store the drain flag: " .. tostring(err)
    end
    mark_versions(_M.FLAG)
    return true
end

-- clear lowers the flag. (A flag that expired instead leaves the version keys marked
-- until the next clear: their requests read the flag, and find it down.)
function _M.clear()
    dict:delete(KEY)
    mark_versions(0)
end

-- flags returns the user flags a version key written now takes: FLAG while the flag is
-- up, so that a backend pushed during a drain is drained too.
function _M.flags()
    return dict:get(KEY) ~= nil and _M.FLAG or 0
end

-- active says whether the flag is up; an expired one reads as nil.
function _M.active()
    return dict:get(KEY) ~= nil
end

-- keeps_alive says whether nginx will keep the client's connection open after this answer,
-- as nginx decides it from the request: HTTP/1.1 unless it asked to close, HTTP/1.0 only
-- when it asked to keep alive. HTTP/2 closes with GOAWAY on its own, and a Connection
-- header is not allowed there.
local function keeps_alive()
    local v = ngx.req.http_version()
    local asked = (ngx.var.http_connection or ""):lower()
    if v == 1.1 then
        return not asked:find("close", 1, true)
    elseif v == 1.0 then
        return asked:find("keep-alive", 1, true) ~= nil
    end
    return false
end

-- mark asks for "Connection: close" on this request's answer while the flag is up: it sets
-- $rp_drain, which nginx.conf's add_header turns into the header. The balancer calls it
-- for a request whose version key carries FLAG, before the answer is known: an upgrade
-- request is left alone, since its 101 answer's "Connection: upgrade" is what switches
-- the protocol (a refused upgrade during a drain is not told to close).
function _M.mark()
    if not dict:get(KEY) or not keeps_alive() or ngx.var.http_upgrade then
        return
    end
    ngx.var.rp_drain = "close"
end

-- answer marks an answer Lua makes in place of the upstream's (an access policy's refusal,
-- a CORS preflight's), in a location that runs no header filter.
function _M.answer()
    if not dict:get(KEY) or not keeps_alive() then
        return
    end
    ngx.var.rp_drain = "close"
end

-- header_filter marks the answers nginx makes without a balancer, where the conf runs it;
-- a 101 answer is left alone.
function _M.header_filter()
    if not dict:get(KEY) or ngx.status == 101 or not keeps_alive() then
        return
    end
    ngx.var.rp_drain = "close"
end

return _M
