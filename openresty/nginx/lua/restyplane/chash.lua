-- restyplane.chash is consistent hashing on a ring of virtual nodes: a key goes to the
-- first point at or after its hash, so a peer joining or leaving moves only the keys
-- next to its points. Weights scale each peer's number of points.
local _M = {}
local mt = { __index = _M }

local md5_bin = ngx.md5_bin
local byte = string.byte
local floor, max, min = math.floor, math.max, math.min

-- hash32 takes 32 bits of MD5 rather than CRC32: CRC32 is linear, so short keys that differ
-- in one character ("u1", "u2", ...) land in clusters on the ring and can all fall to one
-- peer. MD5 spreads them; its cost per request is under a microsecond.
local function hash32(s)
    local a, b, c, d = byte(md5_bin(s), 1, 4)
    return ((a * 256 + b) * 256 + c) * 256 + d
end

local MAX_POINTS = 20000

function _M.new(peers)
    local maxw = 1
    for _, p in ipairs(peers) do
        maxw = max(maxw, p.weight)
    end
    local base = max(4, min(160, floor(MAX_POINTS / max(#peers, 1))))
    local points = {}
    for i, p in ipairs(peers) do
        local n = max(1, floor(base * p.weight / maxw + 0.5))
        for v = 1, n do
            points[#points + 1] = { hash32(p.id .. "#" .. v), i }
        end
    end
    table.sort(points, function(a, b)
        return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
    end)
    local hashes, owners = {}, {}
    for k, pt in ipairs(points) do
        hashes[k], owners[k] = pt[1], pt[2]
    end
    return setmetatable({ peers = peers, hashes = hashes, owners = owners }, mt)
end

-- pick returns the peer owning key, or the next one along the ring not in tried.
function _M:pick(tried, key)
    local hashes, n = self.hashes, #self.hashes
    if n == 0 then
        return nil
    end
    local h = hash32(key or "")
    local lo, hi = 1, n + 1
    while lo < hi do
        local mid = floor((lo + hi) / 2)
        if hashes[mid] < h then
            lo = mid + 1
        else
            hi = mid
        end
    end
    for k = 0, n - 1 do
        local p = self.peers[self.owners[(lo - 1 + k) % n + 1]]
        if not tried[p.id] then
            return p
        end
    end
    return nil
end

return _M
