-- restyplane.finish is the log phase of every request (log_by_lua at http level): the
-- counters behind automatic rollback, EWMA's response times and the release of a
-- connection limit, with one look at the request's balancer state for all three.
local balancer = require("restyplane.balancer")
local count = require("restyplane.count")
local policy = require("restyplane.policy")

local _M = {}

function _M.log()
    local st = balancer.state()
    count.log(st)
    balancer.log(st)
    policy.log()
end

return _M
