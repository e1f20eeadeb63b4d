-- restyplane.limit counts requests and connections per client address in the
-- restyplane_limits shared dict. A rate is a leaky bucket as nginx's limit_req with
-- nodelay: each request adds one to the excess, which drains at the rate; a request that
-- would take the excess past the burst is refused and not counted. A connection count is
-- raised in the access phase and lowered in the log phase of the same request.
local dict = ngx.shared.restyplane_limits

local _M = {}

local max, ceil, floor, now = math.max, math.ceil, math.floor, ngx.now

-- rate reports whether one more request under key fits a bucket of per_sec requests a
-- second with burst more at once. The excess is the value and the time of the last
-- request (milliseconds, modulo 2^32) the flags, so that no string is made or parsed.
-- The read and the write are two steps, as in lua-resty-limit-traffic: requests racing on
-- two workers may both pass at the edge.
function _M.rate(key, per_sec, burst)
    local t = floor(now() * 1000) % 4294967296
    local excess = 0
    local e, last = dict:get(key)
    if e then
        excess = max(e - per_sec * (((t - (last or 0)) % 4294967296) / 1000), 0) + 1
    end
    if excess > burst then
        return false
    end
    -- The key outlives a full bucket's drain, then goes; the dict's LRU bounds the rest.
    dict:set(key, excess, ceil((burst + 1) / per_sec) + 1, t)
    return true
end

-- enter counts one more concurrent request under key; false when it would pass limit.
function _M.enter(key, limit)
    local n, err = dict:incr(key, 1, 0)
    if not n then
        ngx.log(ngx.ERR, "restyplane: connection limit ", key, ": ", err)
        return true -- a full dict does not stop traffic
    end
    if n > limit then
        dict:incr(key, -1)
        return false
    end
    return true
end

-- leave counts a request that enter let in out again.
function _M.leave(key)
    dict:incr(key, -1, 0)
end

return _M
