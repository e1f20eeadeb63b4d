-- restyplane.balancer picks the peer for each upstream attempt (balancer_by_lua), sets the
-- affinity cookie (header_filter_by_lua) and feeds response times back to EWMA
-- (log_by_lua). The location names its backend in $rp_backend, or, in a block that prefixes
-- share, in $rp_routes.
local ngx_balancer = require("ngx.balancer")
local backends = require("restyplane.backends")
local drain = require("restyplane.drain")
local routes = require("restyplane.routes")

local _M = {}

-- canary decides, once per request, whether the alternative backend serves it: a header
-- or cookie that says "always" or "never" (or the header's configured value) decides
-- first, then the weight.
local function canary(primary)
    local c = primary.canary
    if not c then
        return primary
    end
    local alt = backends.get(c.backend)
    if not alt or #alt.peers == 0 then
        return primary
    end
    if c.header_var then
        local v = ngx.var[c.header_var]
        if v and c.header_value then
            if v == c.header_value then
                return alt
            end
        elseif v == "always" then
            return alt
        elseif v == "never" then
            return primary
        end
    end
    if c.cookie_var then
        local v = ngx.var[c.cookie_var]
        if v == "always" then
            return alt
        elseif v == "never" then
            return primary
        end
    end
    if c.weight > 0 and math.random(100) <= c.weight then
        return alt
    end
    return primary
end

-- first_attempt settles the backend, its timeouts and its retries for the request. A
-- mirror's copy names its backend in ngx.ctx (see restyplane.mirror): the variables it
-- sees are the copied request's, its location's timeouts and tries included.
local function first_attempt()
    local mirror = ngx.ctx.rp_mirror
    local name = mirror or ngx.var.rp_backend
    if not mirror and (not name or name == "") then
        name = routes.backend(ngx.var.rp_routes, ngx.var.rp_prefix)
        if name then
            -- For the access log, which names the backend.
            ngx.var.rp_backend = name
        end
    end
    local b = name and name ~= "" and backends.get(name)
    if not b then
        ngx.log(ngx.ERR, "restyplane: backend \"", name, "\" has not been pushed")
        return nil
    end
    b = canary(b)
    local t = b.timeouts
    if t then
        -- A timeout the location set itself wins over the backend's.
        local set = not mirror and ngx.var.rp_location_timeouts or ""
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
    -- A location's retry policy (its tries, the first included) wins over the backend's
    -- retries; a retry always moves to a peer not tried yet, so there are at most as many
    -- more tries as other peers.
    local more = b.retries
    local tries = not mirror and tonumber(ngx.var.rp_tries or "")
    if tries then
        more = tries - 1
    end
    local pinned, key
    if b.affinity then
        pinned, key = b.affinity:pinned()
        -- A client that is to change peers when its own fails gets one more try, on
        -- another peer, when nothing else allows one.
        if pinned and more == 0 and b.affinity.change_on_failure then
            more = 1
        end
    end
    if more > 0 and #b.peers > 1 then
        local ok, err = ngx_balancer.set_more_tries(math.min(more, #b.peers - 1))
        if not ok then
            ngx.log(ngx.ERR, "restyplane: set more tries: ", err)
        end
    end
    return { backend = b, tried = {}, picked = {}, pinned = pinned, key = key }
end

-- balance runs for every attempt; a retry moves to a peer not tried yet.
function _M.balance()
    local ctx = ngx.ctx
    local st = ctx.rp
    if not st then
        st = first_attempt()
        if not st then
            -- nginx answers any exit from the balancer with a 500.
            return ngx.exit(500)
        end
        ctx.rp = st
    end
    local b = st.backend
    local peer, cookie
    if b.affinity then
        peer, cookie = b.affinity:choose(st)
    end
    if not peer then
        local key = b.hash_var and (ngx.var[b.hash_var] or "") or nil
        peer = b.balancer:pick(st.tried, key)
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
    local ok, err = ngx_balancer.set_current_peer(peer.host, peer.port)
    if not ok then
        ngx.log(ngx.ERR, "restyplane: set peer ", peer.id, ": ", err)
        return ngx.exit(500)
    end
    if b.affinity then
        -- The last attempt decides: a cookie that pins the client to the peer that
        -- answers, or none, which leaves the client its own.
        ctx.rp_cookie = cookie and b.affinity:set_cookie(cookie) or nil
    end
end

-- header_filter asks the client to close its connection while a reload drains (it runs at
-- http level, so for every answer, the proxy's and nginx's own) and sets the affinity
-- cookie when the request did not already carry it.
function _M.header_filter()
    drain.header_filter()
    local c = ngx.ctx.rp_cookie
    if not c then
        return
    end
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

-- log reports each attempt's response time to a balancer that learns from them.
function _M.log()
    local st = ngx.ctx.rp
    if not st or not st.backend.balancer.observe then
        return
    end
    local times, statuses = {}, {}
    for t in (ngx.var.upstream_response_time or ""):gmatch("[^,:%s]+") do
        times[#times + 1] = tonumber(t) or 0
    end
    for s in (ngx.var.upstream_status or ""):gmatch("[^,:%s]+") do
        statuses[#statuses + 1] = tonumber(s) or 0
    end
    for i, peer in ipairs(st.picked) do
        local status = statuses[i] or 0
        st.backend.balancer:observe(peer, times[i] or 0, status == 0 or status >= 500)
    end
end

return _M
