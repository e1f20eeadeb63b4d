-- restyplane.policy enforces a location's access lists and limits per client address in
-- its access phase (access_by_lua names the policy). The policies are pushed by the
-- applier into the restyplane_policies shared dict; each worker keeps a compiled copy and
-- compiles again only when the policy's version in the dict moved, so a change of list or
-- rate reaches traffic on the next request without a reload.
local json = require("restyplane.json")
local cidr = require("restyplane.cidr")
local limit = require("restyplane.limit")
local versioned = require("restyplane.versioned")

local store = versioned.new(ngx.shared.restyplane_policies, "p")
local _M = {}

local cache = {}

-- inside is the number of this worker's requests counted in a connection limit and not
-- let out yet.
local inside = 0

local function num(v)
    if type(v) == "number" and v > 0 then
        return v
    end
    return nil
end

-- compile turns a pushed policy into matchers and numbers.
local function compile(p, ver)
    local c = { version = ver, name = p.name, status = num(p.status) or 429 }
    local err
    for _, k in ipairs({ "allow", "deny", "exempt" }) do
        c[k], err = cidr.compile(p[k])
        if err then
            return nil, err
        end
    end
    local mult = num(p.burstMultiplier) or 5
    if num(p.rps) then
        c.rps, c.rps_burst = p.rps, p.rps * mult
    end
    if num(p.rpm) then
        c.rpm, c.rpm_burst = p.rpm / 60, p.rpm * mult
    end
    c.conns = num(p.connections)
    return c
end

local function get(name)
    local c = cache[name]
    local ver = store:version(name, c and c.key)
    if not ver then
        return nil
    end
    if c and c.version == ver then
        return c
    end
    local raw = store:body(name)
    local p = raw and json.decode(raw)
    if type(p) ~= "table" then
        return nil
    end
    local err
    c, err = compile(p, ver)
    if not c then
        ngx.log(ngx.ERR, "restyplane: policy ", name, ": ", err)
        return nil
    end
    -- The keys of the limits' counts, but for the address: built once per change.
    c.key, c.rps_key, c.rpm_key = versioned.key(name), "s|" .. name .. "|", "m|" .. name .. "|"
    cache[name] = c
    return c
end

-- access enforces the named policy: 403 for an address the lists refuse, the policy's
-- status past a limit. A policy the conf names but that was never pushed (shared memory
-- emptied by a restart, before the applier's full push) fails closed with 503.
function _M.access(name)
    local p = get(name)
    if not p then
        ngx.log(ngx.ERR, "restyplane: policy ", name, " has not been pushed")
        return ngx.exit(503)
    end
    local addr = cidr.normalize(ngx.var.binary_remote_addr or "")
    if p.deny and cidr.match(p.deny, addr) then
        return ngx.exit(403)
    end
    if p.allow and not cidr.match(p.allow, addr) then
        return ngx.exit(403)
    end
    if not (p.rps or p.rpm or p.conns) or (p.exempt and cidr.match(p.exempt, addr)) then
        return
    end
    if p.rps and not limit.rate(p.rps_key .. addr, p.rps, p.rps_burst) then
        return ngx.exit(p.status)
    end
    if p.rpm and not limit.rate(p.rpm_key .. addr, p.rpm, p.rpm_burst) then
        return ngx.exit(p.status)
    end
    if p.conns then
        local key = "c|" .. name .. "|" .. addr
        if not limit.enter(key, p.conns) then
            return ngx.exit(p.status)
        end
        -- In a variable, not ngx.ctx: an intercepted answer's error page ends the request
        -- in another location, and an internal redirect keeps variables but not ngx.ctx.
        ngx.var.rp_conn = key
        inside = inside + 1
    end
end

-- log lets out the connection access counted in. It runs in the log phase of every
-- location where a request inside a connection limit may end: the limited location and
-- the error pages it sends codes to. Only while a request of this worker is inside a
-- limit does it read the variable.
function _M.log()
    if inside == 0 then
        return
    end
    local key = ngx.var.rp_conn
    if key and key ~= "" then
        inside = inside - 1
        limit.leave(key)
    end
end

local function valid_name(n)
    return type(n) == "string" and #n <= 160 and n:match("^[a-z0-9][a-z0-9._-]*/%d+$") ~= nil
end

-- put stores pushed policies at version and deletes the named ones; with replace every
-- other policy goes too.
function _M.put(version, list, deleted, replace)
    local items = {}
    for i, p in ipairs(list) do
        if type(p) ~= "table" or not valid_name(p.name) then
            return nil, "a policy needs a name <server>/<location index>"
        end
        local _, err = compile(p, version)
        if err then
            return nil, "policy " .. p.name .. ": " .. err
        end
        items[i] = { name = p.name, body = json.encode(p) }
    end
    return store:write("policy", version, items, deleted, replace)
end

-- list returns the names of the stored policies.
function _M.list()
    return store:names()
end

return _M
