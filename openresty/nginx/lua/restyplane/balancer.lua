-- restyplane.balancer picks the peer for each upstream attempt (balancer_by_lua), and, as
-- the answer's header goes out (restyplane.finish), sets the affinity cookie and feeds the
-- attempts' times back to EWMA. The location names its backend in $rp_backend, or, in a
-- block that prefixes share, in $rp_routes.
local ngx_balancer = require("ngx.balancer")
local backends = require("restyplane.backends")
local canary = require("restyplane.canary")
local mirror = require("restyplane.mirror")
local routes = require("restyplane.routes")

local _M = {}

local var = ngx.var
-- NONE is the tried set of a first attempt that keeps no state: nothing tried yet.
local NONE = setmetatable({}, { __newindex = function() error("NONE is read-only") end })

-- timeouts applies the backend's timeouts, where the location set none of its own (a
-- mirror's copy sees the copied request's variables, so it takes the backend's).
local function timeouts(t, mirrored)
    local set = not mirrored and var.rp_location_timeouts or ""
    local c = not set:find("c", 1, true) and t.connect or nil
    local s = not set:find("s", 1, true) and t.send or nil
    local r = not set:find("r", 1, true) and t.read or nil
    if c or s or r then
        local ok, err = ngx_balancer.set_timeouts(c, s, r)
        if not ok then
            ngx.log(ngx.ERR, "restyplane: set timeouts: ", err)
        end
    end
end

-- more_tries is how many more peers a request to b may try after its first, and whether
-- a retry may go to a peer already tried: a location's retry policy (its tries, the first
-- included) wins over the backend's retries. A retry moves to a peer not tried yet, so
-- there are at most as many as other peers, unless the location lets it try one again
-- once none is left (again: its upstream block says so, Gateway API's attempts).
local function more_tries(b, mirrored, again)
    local others = #b.peers - 1
    if others < 1 and not again then
        return 0
    end
    local tries = not mirrored and tonumber(var.rp_tries or "")
    if again and tries then
        return tries - 1, true
    end
    if others < 1 then
        return 0
    end
    local more = b.retries
    if tries then
        more = tries - 1
    end
    return math.min(more, others)
end

local function set_peer(peer)
    local ok, err = ngx_balancer.set_current_peer(peer.host, peer.port)
    if not ok then
        ngx.log(ngx.ERR, "restyplane: set peer ", peer.id, ": ", err)
        return ngx.exit(500)
    end
end

-- first_attempt settles the backend, its timeouts and its retries for the request. A
-- request to a backend that keeps no state (backend.build decides) and that no retry
-- follows gets its peer here, and first_attempt returns nil: it costs no ngx.ctx and no
-- table. Any other gets the state that its next attempts and later phases read. A
-- mirror's copy names its backend in ngx.ctx (see restyplane.mirror): the variables it
-- sees are the copied request's. again is balance's.
local function first_attempt(again)
    local mirrored = mirror.waiting() and ngx.ctx.rp_mirror or nil
    if mirrored then
        mirror.taken()
    end
    local name = mirrored or var.rp_backend
    if not mirrored and (not name or name == "") then
        name = routes.backend(var.rp_routes, var.rp_prefix)
        if name then
            -- For the access log and the counters, which name the backend.
            var.rp_backend = name
        end
    end
    local b = name and name ~= "" and backends.get(name)
    if not b then
        ngx.log(ngx.ERR, "restyplane: backend \"", name, "\" has not been pushed")
        return ngx.exit(500)
    end
    -- A share of a backendRef that does not resolve is answered 500, as Gateway API asks.
    if b.error_share and math.random() < b.error_share then
        return ngx.exit(500)
    end
    -- The backend the location names decides whether the request keeps state: a canary's
    -- alternative is counted under its own name, which only the state holds.
    local stateful = b.stateful
    if stateful then
        b = canary.choose(b)
    end
    if b.timeouts then
        timeouts(b.timeouts, mirrored)
    end
    local more
    more, again = more_tries(b, mirrored, again)
    local pinned, key
    if b.affinity then
        pinned, key = b.affinity:pinned()
        -- A client that is to change peers when its own fails gets one more try, on
        -- another peer, when nothing else allows one.
        if pinned and more == 0 and b.affinity.change_on_failure and b.peers[2] then
            more = 1
        end
    end
    if more > 0 then
        local ok, err = ngx_balancer.set_more_tries(more)
        if not ok then
            ngx.log(ngx.ERR, "restyplane: set more tries: ", err)
        end
    elseif not stateful then
        local peer = b.peers[1]
        if b.peers[2] then
            peer = b.balancer:pick(NONE, b.hash_var and (var[b.hash_var] or "") or nil)
        end
        if not peer then
            ngx.log(ngx.ERR, "restyplane: backend \"", b.name, "\" has no endpoint to try")
            return ngx.exit(500)
        end
        return set_peer(peer)
    end
    local st = { backend = b, tried = {}, picked = {}, pinned = pinned, key = key, again = again }
    ngx.ctx.rp = st
    return st
end

-- balance runs for every attempt; a retry moves to a peer not tried yet, or, in an
-- upstream block whose locations allow it (again), to any once every peer was tried.
function _M.balance(again)
    local st
    if ngx_balancer.get_last_failure() ~= nil then
        st = ngx.ctx.rp
    end
    if not st then
        st = first_attempt(again)
        if not st then
            return
        end
    end
    local b = st.backend
    local peer, cookie
    if b.affinity then
        peer, cookie = b.affinity:choose(st)
    end
    if not peer then
        local key = b.hash_var and (var[b.hash_var] or "") or nil
        peer = b.balancer:pick(st.tried, key)
        if not peer and st.again then
            -- Every peer was tried, and the location lets a retry go to one again.
            peer = b.balancer:pick(NONE, key)
        end
        if cookie == true then
            cookie = peer and peer.cookie
        end
    end
    if not peer then
        ngx.log(ngx.ERR, "restyplane: backend \"", b.name, "\" has no endpoint left to try")
        return ngx.exit(500)
    end
    st.tried[peer.id] = true
    st.picked[#st.picked + 1] = peer
    if b.balancer.observe and not st.unsettled then
        st.unsettled = b.balancer:settle_at_end(st.picked)
    end
    set_peer(peer)
    if b.affinity then
        -- The last attempt decides: a cookie that pins the client to the peer that
        -- answers, or none, which leaves the client its own.
        ngx.ctx.rp_cookie = cookie and b.affinity:set_cookie(cookie) or nil
    end
end

-- state returns the request's balancer state, or nil when its backend keeps none. The
-- phases after the balancer ask for it rather than read ngx.ctx themselves: the first
-- read of ngx.ctx makes a table for the request, which only a stateful backend's needs.
-- The backend is the worker's copy as the balancer left it, with no shared dict read.
function _M.state()
    if not backends.any_stateful() then
        return nil
    end
    local name = var.rp_backend
    local b = name and backends.cached(name)
    if b and b.stateful then
        return ngx.ctx.rp
    end
    return nil
end

-- header_filter sets the affinity cookie when the request did not already carry it and
-- reports each attempt's time to a balancer that learns from them (EWMA); st is the
-- request's state (see state). It runs as the answer's header goes out (restyplane.finish):
-- an attempt that answered reports its time to the header, one that failed its time to
-- the failure.
function _M.header_filter(st)
    if not st then
        return
    end
    local c = ngx.ctx.rp_cookie
    if c then
        local existing = ngx.header["Set-Cookie"]
        if type(existing) == "table" then
            existing[#existing + 1] = c
            ngx.header["Set-Cookie"] = existing
        elseif existing then
            ngx.header["Set-Cookie"] = { existing, c }
        else
            ngx.header["Set-Cookie"] = c
        end
    end
    if not st.backend.balancer.observe then
        return
    end
    local times, statuses = {}, {}
    for t in (var.upstream_header_time or ""):gmatch("[^,:%s]+") do
        times[#times + 1] = tonumber(t) or 0
    end
    for s in (var.upstream_status or ""):gmatch("[^,:%s]+") do
        statuses[#statuses + 1] = tonumber(s) or 0
    end
    st.picked.settled = true
    for i, peer in ipairs(st.picked) do
        local status = statuses[i] or 0
        st.backend.balancer:observe(peer, times[i] or 0, status == 0 or status >= 500)
    end
end

return _M
