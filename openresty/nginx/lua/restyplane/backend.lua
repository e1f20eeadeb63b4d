-- restyplane.backend turns a backend as pushed (api.Backend's JSON) into the form the
-- balancer uses: peers with ids and affinity cookies, a balancing algorithm, timeouts in
-- seconds, and the canary's rule.
local rr = require("restyplane.rr")
local ewma = require("restyplane.ewma")
local chash = require("restyplane.chash")
local affinity = require("restyplane.affinity")

local _M = {}

local units = { ms = 0.001, s = 1, m = 60, h = 3600 }

-- seconds reads an nginx duration ("500ms", "5s") as seconds, nil when absent or invalid.
local function seconds(d)
    if type(d) ~= "string" then
        return nil
    end
    local n, unit = d:match("^(%d+)(%a+)$")
    if not n or not units[unit] or tonumber(n) == 0 then
        return nil
    end
    return tonumber(n) * units[unit]
end

local function header_var(name)
    return "http_" .. name:lower():gsub("-", "_")
end

function _M.table_or_nil(v)
    if type(v) == "table" then
        return v
    end
    return nil
end

-- build turns a stored backend into the form the balancer uses.
function _M.build(b)
    local peers, by_cookie = {}, {}
    for _, e in ipairs(_M.table_or_nil(b.endpoints) or {}) do
        local w = tonumber(e.weight) or 1
        if w < 1 then
            w = 1
        end
        local id = e.address .. ":" .. e.port
        -- nginx parses the peer as a URL, so an IPv6 address needs its brackets.
        local host = e.address:find(":", 1, true) and "[" .. e.address .. "]" or e.address
        local p = { host = host, port = tonumber(e.port), weight = w, id = id,
                    cookie = ngx.md5(id):sub(1, 16) }
        peers[#peers + 1] = p
        by_cookie[p.cookie] = p
    end
    local inst = { name = b.name, version = b.version, peers = peers, by_cookie = by_cookie,
                   retries = tonumber(b.retries) or 0 }
    -- The share of requests answered 500 without an endpoint (errorWeight), weighed
    -- against the peers' weights.
    local ew = tonumber(b.errorWeight) or 0
    if ew > 0 then
        local total = 0
        for _, p in ipairs(peers) do
            total = total + p.weight
        end
        inst.error_share = ew / (ew + total)
    end
    if b.loadBalance == "ewma" then
        inst.balancer = ewma.new(peers)
    elseif b.loadBalance == "chash" and type(b.hashBy) == "string" then
        inst.balancer = chash.new(peers)
        inst.hash_var = b.hashBy:sub(2)
    else
        inst.balancer = rr.new(peers)
    end
    local t = _M.table_or_nil(b.timeouts)
    if t then
        inst.timeouts = { connect = seconds(t.connect), send = seconds(t.send), read = seconds(t.read) }
    end
    inst.affinity = affinity.new(_M.table_or_nil(b.affinity), peers, by_cookie)
    local c = _M.table_or_nil(b.canary)
    if c and type(c.backend) == "string" then
        inst.canary = {
            backend = c.backend,
            weight = tonumber(c.weight) or 0,
            header_var = type(c.header) == "string" and c.header ~= "" and header_var(c.header) or nil,
            header_value = type(c.headerValue) == "string" and c.headerValue ~= "" and c.headerValue or nil,
            cookie_var = type(c.cookie) == "string" and c.cookie ~= "" and "cookie_" .. c.cookie or nil,
        }
    end
    -- Decided here, once per change, rather than on every request: a backend whose
    -- requests need memory of their own (the canary's choice, EWMA's attempts in flight,
    -- the affinity cookie to set) keeps it in ngx.ctx; a request to any other needs it
    -- only when it may be retried on another peer.
    inst.stateful = inst.canary ~= nil or inst.affinity ~= nil or inst.balancer.observe ~= nil
    return inst
end

return _M
