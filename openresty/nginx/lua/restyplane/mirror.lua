-- restyplane.mirror runs in the internal location of a mirror (nginx's mirror
-- directive): the subrequest it serves shares the nginx variables of the request it
-- copies, so the backend goes in the subrequest's own ngx.ctx, where the balancer looks
-- first, and the share of copies above percent is answered here, never sent.
local _M = {}

function _M.copy(backend, percent)
    if percent < 100 and math.random(100) > percent then
        return ngx.exit(204)
    end
    ngx.ctx.rp_mirror = backend
end

return _M
