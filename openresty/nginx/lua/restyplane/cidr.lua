-- restyplane.cidr matches a client address against a list of CIDRs with one hash lookup
-- per distinct prefix length in the list, longest first: a list of a thousand CIDRs costs
-- at most 33 lookups for IPv4 (129 for IPv6), whatever its size. The applier sends each
-- CIDR as "<family>:<hex of its first ceil(len/8) bytes, masked>/<len>", so no address is
-- parsed here; the request's address is nginx's $binary_remote_addr. IPv4 keys are
-- numbers, so that a lookup makes no string.
local _M = {}

local sub, char, byte = string.sub, string.char, string.byte
local floor = math.floor

-- v4mapped is the prefix of an IPv4-mapped IPv6 address: such a client is matched as the
-- IPv4 address it is.
local v4mapped = "\0\0\0\0\0\0\0\0\0\0\255\255"

local function unhex(h)
    return (h:gsub("..", function(x) return char(tonumber(x, 16)) end))
end

-- compile builds the matcher of a list, or nil for an empty one; nil and an error for an
-- entry that is not in the applier's form.
function _M.compile(list)
    if type(list) ~= "table" or #list == 0 then
        return nil
    end
    local m = { [4] = { lens = {} }, [6] = { lens = {} } }
    for _, e in ipairs(list) do
        local fam, hex, len
        if type(e) == "string" then
            fam, hex, len = e:match("^([46]):(%x*)/(%d+)$")
        end
        fam, len = tonumber(fam), tonumber(len)
        if not fam or len > (fam == 4 and 32 or 128) or #hex ~= 2 * math.ceil(len / 8) then
            return nil, "bad CIDR entry " .. tostring(e)
        end
        local t = m[fam]
        local bylen = t[len]
        if not bylen then
            local rem = len % 8
            -- div masks the partial byte: b - b % div keeps its first rem bits. An IPv4
            -- address is a number instead, masked by n - n % div4: no string is made.
            bylen = { keys = {}, full = floor(len / 8), rem = rem, div = 2 ^ (8 - rem), div4 = 2 ^ (32 - len) }
            t[len] = bylen
            t.lens[#t.lens + 1] = len
        end
        if fam == 4 then
            bylen.keys[tonumber(hex .. string.rep("0", 8 - #hex), 16)] = true
        else
            bylen.keys[unhex(hex)] = true
        end
    end
    for _, fam in ipairs({ 4, 6 }) do
        table.sort(m[fam].lens, function(a, b) return a > b end)
    end
    return m
end

-- normalize returns a binary address as the matchers key it (IPv4-mapped to IPv4).
function _M.normalize(bin)
    if #bin == 16 and sub(bin, 1, 12) == v4mapped then
        return sub(bin, 13)
    end
    return bin
end

-- match reports whether the binary address (4 or 16 bytes, normalized) is in m.
function _M.match(m, bin)
    if not m or not bin then
        return false
    end
    if #bin == 4 then
        local b1, b2, b3, b4 = byte(bin, 1, 4)
        local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
        local t = m[4]
        local lens = t.lens
        for i = 1, #lens do
            local l = t[lens[i]]
            if l.keys[n - n % l.div4] then
                return true
            end
        end
        return false
    end
    local t = m[6]
    local lens = t.lens
    for i = 1, #lens do
        local l = t[lens[i]]
        local key = sub(bin, 1, l.full)
        if l.rem > 0 then
            local b = byte(bin, l.full + 1)
            key = key .. char(b - b % l.div)
        end
        if l.keys[key] then
            return true
        end
    end
    return false
end

return _M
