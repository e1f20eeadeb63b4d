-- restyplane.count counts each answer (as its header goes out) into the keys restyplane.counters
-- reads: per server "r:<server>" requests and "e:<server>" 5xx answers, per backend
-- "q:<backend>" requests that reached an upstream and "f:<backend>" those it answered with a
-- 5xx. The distinct failing clients of the watch epoch ("c:<epoch>:<backend>:<address>" once
-- each, "C:<epoch>:<backend>" their number) go in a dict of their own: every reading walks
-- the counters' keys under the dict's lock, and an incident's clients (tens of thousands of
-- keys, one per address) would make each walk, and the workers waiting on the lock, that
-- much longer.
--
-- Each worker adds its counts up in Lua tables and a timer adds them to the dict every
-- FLUSH seconds (and when the worker exits): a request costs no lock and no key string.
-- A request's counts, its 5xx with it, move to the dict in the same flush. A reading sees
-- a count at most FLUSH seconds late; the worker that serves a reading adds its own first.
local dict = ngx.shared.restyplane_counters
local clients = ngx.shared.restyplane_clients
local var = ngx.var

local _M = {}

-- FLUSH is how often, in seconds, each worker adds its counts to the dict.
_M.FLUSH = 0.1

-- clientTTL keeps a (backend, client) key, and an epoch's count of them, long enough for
-- any watch window.
local clientTTL = 3600

-- The worker's counts not yet in the dict, by server or backend name, each table under
-- its kind's key prefix: r and e per server, q and f per backend.
local pending = { r = {}, e = {}, q = {}, f = {} }
local any = false

-- exiting is set once the worker flushed for the last time: it is shutting down, and
-- the requests it still finishes go to the dict one by one.
local exiting = false

local function add(t, name)
    t[name] = (t[name] or 0) + 1
    any = true
    if exiting then
        _M.flush()
    end
end

-- flush adds the worker's counts to the dict.
function _M.flush()
    if not any then
        return
    end
    for kind, t in pairs(pending) do
        for name, n in pairs(t) do
            local ok, err = dict:incr(kind .. ":" .. name, n, 0)
            if not ok then
                ngx.log(ngx.ERR, "restyplane: count ", kind, ":", name, ": ", err)
            end
        end
        pending[kind] = {}
    end
    any = false
end

-- start runs the flush timer in this worker (init_worker). A worker that shuts down (a
-- reload, a stop) flushes what it holds when its timers end, and every count after that
-- at once.
function _M.start()
    local ok, err = ngx.timer.every(_M.FLUSH, function(premature)
        exiting = premature
        _M.flush()
    end)
    if not ok then
        ngx.log(ngx.ERR, "restyplane: start the counters' timer: ", err)
    end
end

-- lastStatus is the status of the last upstream attempt ("502, 200" → 200), or nil when
-- no upstream answered: statuses nginx made up for the client do not count.
local function lastStatus()
    local s = var.upstream_status
    if not s then
        return nil
    end
    return tonumber(s) or tonumber(s:match("(%d+)%s*$"))
end

-- log counts the request; st is its balancer state (balancer.state), nil for a request
-- to a backend that keeps none. server and backend are the names the location gives, or
-- nil for those $rp_server and $rp_backend hold. direct says that every answer below 400
-- of the location is its upstream's (render's locationView.Direct): such an answer is
-- counted from the status sent, and only the others read $upstream_status.
function _M.log(st, server, backend, direct)
    local code = ngx.status
    local s = server or var.rp_server
    if s and s ~= "" then
        add(pending.r, s)
        if code >= 500 then
            add(pending.e, s)
        end
    end
    local status
    if direct and code < 400 then
        status = code
    else
        status = lastStatus()
    end
    if not status then
        return
    end
    local b = st and st.backend.name or backend or var.rp_backend
    if not b or b == "" then
        return
    end
    add(pending.q, b)
    if status >= 500 then
        add(pending.f, b)
        local epoch = dict:get("w:epoch") or 0
        if clients:add("c:" .. epoch .. ":" .. b .. ":" .. (var.remote_addr or ""), true, clientTTL) then
            clients:incr("C:" .. epoch .. ":" .. b, 1, 0, clientTTL)
        end
    end
end

return _M
