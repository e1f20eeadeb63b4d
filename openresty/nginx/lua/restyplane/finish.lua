-- restyplane.finish is what restyplane does once a request's answer is known. Its header
-- phase (header_filter_by_lua: at http level for every answer, and in each location that
-- proxies to one backend, with its names as literals) marks the answer for a drain, sets
-- the affinity cookie, counts the request for automatic rollback and feeds EWMA its time
-- to the upstream's header. Its log phase (log_by_lua, only in locations whose policy
-- limits concurrent requests and in the error pages they send codes to) lets out a
-- connection limit when the request ends.
--
-- All but the connection limit run when the header is sent, not in a log phase of every
-- request: a Lua phase fewer per request. What changes is what a request that never got
-- an answer counts (its client left first, nginx's 499): no request, as it was no error.
local balancer = require("restyplane.balancer")
local count = require("restyplane.count")
local drain = require("restyplane.drain")
local policy = require("restyplane.policy")

local _M = {}

-- header runs as each answer's header goes out. A location that proxies to one backend
-- names its server and backend; any other leaves them nil, for the variables. direct
-- says that the location's answers below 400 are all its upstream's (see
-- render.locationView.Direct and restyplane.count). A subrequest (auth, a mirror's copy)
-- is part of its main request, which is counted on its own.
function _M.header(server, backend, direct)
    drain.header_filter()
    if ngx.is_subrequest then
        return
    end
    local st = balancer.state()
    balancer.header_filter(st)
    count.log(st, server, backend, direct)
end

-- log is the log phase of a location whose policy limits concurrent requests, and of an
-- error page such a location sends a code to: the request ends there.
function _M.log()
    policy.log()
end

return _M
