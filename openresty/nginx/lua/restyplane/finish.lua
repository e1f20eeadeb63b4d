-- restyplane.finish is the log phase of every request (log_by_lua at http level): the
-- counters behind automatic rollback, EWMA's response times and the release of a
-- connection limit, with one look at the request's balancer state for all three.
local balancer = require("restyplane.balancer")
local count = require("restyplane.count")
local policy = require("restyplane.policy")

local _M = {}

-- log is the whole log phase. A location that proxies to one backend names its server
-- and backend (log_by_lua in the location); any other leaves them nil, for the variables.
-- direct says that the location's answers below 400 are all its upstream's (see
-- render.locationView.Direct and restyplane.count).
function _M.log(server, backend, direct)
    local st = balancer.state()
    count.log(st, server, backend, direct)
    balancer.log(st)
    policy.log()
end

return _M
