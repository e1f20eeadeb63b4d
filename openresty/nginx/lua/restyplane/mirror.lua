-- restyplane.mirror runs in the internal location of a mirror (nginx's mirror
-- directive): the subrequest it serves shares the nginx variables of the request it
-- copies, so the backend goes in the subrequest's own ngx.ctx, where the balancer looks
-- first, and the share of copies above percent is answered here, never sent.
local _M = {}

-- waiting counts this worker's copies that named their backend and have not reached the
-- balancer yet: only while there is one does the balancer look in a request's ngx.ctx,
-- whose first read makes a table for the request.
local waiting = 0

function _M.copy(backend, percent)
    if percent < 100 and math.random(100) > percent then
        return ngx.exit(204)
    end
    ngx.ctx.rp_mirror = backend
    waiting = waiting + 1
end

-- waiting says whether a copy of this worker waits for the balancer.
function _M.waiting()
    return waiting > 0
end

-- taken counts a copy's backend read by the balancer.
function _M.taken()
    if waiting > 0 then
        waiting = waiting - 1
    end
end

return _M
