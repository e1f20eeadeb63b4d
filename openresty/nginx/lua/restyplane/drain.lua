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
local dict = ngx.shared.restyplane_backends

local _M = {}

-- KEY sits beside backends.lua's "meta:version", outside its "v:" and "b:" names.
local KEY = "meta:drain"

-- set raises the flag for seconds at most; its value is the time it ends.
function _M.set(seconds)
    local ok, err = dict:safe_set(KEY, ngx.now() + seconds, seconds)
    if not ok then
        return nil, "store the drain flag: " .. tostring(err)
    end
    return true
end

function _M.clear()
    dict:delete(KEY)
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

-- header_filter marks the answer "Connection: close" while the flag is up. A 101 answer is
-- left alone: its "Connection: upgrade" is what switches the protocol.
function _M.header_filter()
    if not dict:get(KEY) or ngx.status == 101 or not keeps_alive() then
        return
    end
    ngx.header["Connection"] = "close"
end

return _M
