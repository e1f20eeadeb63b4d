-- restyplane.ewma is peak EWMA with the power of two choices: pick two peers at random and
-- take the one whose decayed response-time average, times its requests in flight, is
-- lower. A slower response raises the average at once (the "peak"); faster ones lower it
-- gradually, and an idle average decays so that a peer that was slow gets tried again.
local ffi = require("ffi")

local _M = {}
local mt = { __index = _M }

local DECAY = 10 -- seconds for the average to fall to 1/e
local FAILURE_PENALTY = 1 -- seconds counted for an attempt that failed

local exp, random, max = math.exp, math.random, math.max

function _M.new(peers)
    return setmetatable({ peers = peers, stats = {} }, mt)
end

local function score(s, now)
    if not s then
        return 0
    end
    return s.ewma * exp(-(now - s.at) / DECAY) * (s.inflight + 1)
end

-- pick returns a peer not in tried and counts it in flight.
function _M:pick(tried)
    local c = {}
    for _, p in ipairs(self.peers) do
        if not tried[p.id] then
            c[#c + 1] = p
        end
    end
    if #c == 0 then
        return nil
    end
    local p = c[1]
    if #c > 1 then
        local i = random(#c)
        local j = random(#c - 1)
        if j >= i then
            j = j + 1
        end
        local now = ngx.now()
        local a, b = c[i], c[j]
        p = score(self.stats[a.id], now) <= score(self.stats[b.id], now) and a or b
    end
    local s = self.stats[p.id]
    if not s then
        s = { ewma = 0, at = ngx.now(), inflight = 0 }
        self.stats[p.id] = s
    end
    s.inflight = s.inflight + 1
    return p
end

-- settle_at_end returns a value for the request to hold: once the request is over and
-- the value collected, the peers in picked are counted out of flight, unless the answer's
-- header observed them first (and set picked.settled). A request whose client left before
-- any answer has no header phase, and its peers would stay in flight for good. The
-- finalizer holds picked and the balancer, never the value, which it would keep alive.
function _M:settle_at_end(picked)
    local stats = self.stats
    return ffi.gc(ffi.new("char[1]"), function()
        if picked.settled then
            return
        end
        for _, peer in ipairs(picked) do
            local s = stats[peer.id]
            if s then
                s.inflight = max(0, s.inflight - 1)
            end
        end
    end)
end

-- observe records one attempt at peer, timed to its answer's header or its failure.
function _M:observe(peer, rtt, failed)
    local s = self.stats[peer.id]
    if not s then
        return
    end
    s.inflight = max(0, s.inflight - 1)
    if failed then
        rtt = max(rtt, FAILURE_PENALTY)
    end
    local now = ngx.now()
    local w = exp(-(now - s.at) / DECAY)
    local e = s.ewma * w
    if rtt > e then
        s.ewma = rtt
    else
        s.ewma = e + (rtt - e) * (1 - w)
    end
    s.at = now
end

return _M
