-- restyplane.rr is smooth weighted round robin (as in nginx's own upstream module): every
-- pick adds each peer's weight to its current value, takes the largest, and subtracts the
-- total from it. Peers come in proportion to their weights, evenly interleaved.
local _M = {}
local mt = { __index = _M }

function _M.new(peers)
    return setmetatable({ peers = peers, current = {} }, mt)
end

-- pick returns the next peer, skipping those in tried (a set of peer ids).
function _M:pick(tried)
    local best, best_cw, total = nil, nil, 0
    local current = self.current
    for i, p in ipairs(self.peers) do
        if not tried[p.id] then
            local cw = (current[i] or 0) + p.weight
            current[i] = cw
            total = total + p.weight
            if not best or cw > best_cw then
                best, best_cw = i, cw
            end
        end
    end
    if not best then
        return nil
    end
    current[best] = best_cw - total
    return self.peers[best]
end

return _M
