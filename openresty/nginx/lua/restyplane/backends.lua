-- restyplane.backends keeps backends in the shared dict and a decoded, ready-to-balance
-- copy in each worker. Workers never poll: each request compares the backend's version in
-- the shared dict with the cached copy and decodes again only when it changed, so a push
-- reaches traffic on the next request without a reload or a timer.
local json = require("restyplane.json")
local backend = require("restyplane.backend")
local versioned = require("restyplane.versioned")

local dict = ngx.shared.restyplane_backends
local store = versioned.new(dict, "b")
local _M = {}

-- cache maps a backend name to its decoded form in this worker; stateful counts the
-- cached backends whose requests keep state (backend.build), so that the phases after
-- the balancer look for a request's state only in a worker that has such a backend.
local cache = {}
local stateful = 0

local function put(name, c)
    local old = cache[name]
    if old and old.stateful then
        stateful = stateful - 1
    end
    if c and c.stateful then
        stateful = stateful + 1
    end
    cache[name] = c
end

-- get returns the worker's copy of a backend, decoding it again only when the version in
-- the shared dict moved: one dict read per request, with a key the copy keeps.
function _M.get(name)
    local c = cache[name]
    local ver = store:version(name, c and c.key)
    if not ver then
        put(name, nil)
        return nil
    end
    if c and c.version == ver then
        return c
    end
    local raw = store:body(name)
    local b = raw and json.decode(raw)
    if type(b) ~= "table" then
        ngx.log(ngx.ERR, "restyplane: backend ", name, " does not decode")
        return nil
    end
    -- The body carries its own version: if a push landed between the two reads, the
    -- cache holds the newer body under its own version and the next request agrees.
    c = backend.build(b)
    c.key = versioned.key(name)
    put(name, c)
    return c
end

-- cached returns the worker's copy of a backend as the balancer last saw it, without
-- reading the shared dict: for the phases after the balancer, of the same request.
function _M.cached(name)
    return cache[name]
end

-- any_stateful says whether a cached backend keeps request state.
function _M.any_stateful()
    return stateful > 0
end

local function valid_name(n)
    return type(n) == "string" and #n <= 128 and n:match("^[a-z0-9][a-z0-9._-]*$") ~= nil
end

-- check refuses a pushed backend the balancer could not use.
local function check(b)
    if type(b) ~= "table" or not valid_name(b.name) then
        return "a backend needs a valid name"
    end
    if b.endpoints ~= nil and b.endpoints ~= json.null and type(b.endpoints) ~= "table" then
        return "backend " .. b.name .. ": endpoints must be a list"
    end
    for _, e in ipairs(backend.table_or_nil(b.endpoints) or {}) do
        if type(e) ~= "table" or type(e.address) ~= "string" or e.address == ""
                or type(e.port) ~= "number" or e.port < 1 or e.port > 65535 then
            return "backend " .. b.name .. ": each endpoint needs an address and a port"
        end
    end
    return nil
end

-- put checks and stores backends stamped with version and deletes the named ones; with
-- replace, it deletes every other backend too (the full push after a restart).
function _M.put(version, list, deleted, replace)
    local items = {}
    for i, b in ipairs(list) do
        local err = check(b)
        if err then
            return nil, err
        end
        b.version = version
        if type(b.endpoints) ~= "table" or #b.endpoints == 0 then
            b.endpoints = nil
        end
        items[i] = { name = b.name, body = json.encode(b) }
    end
    local ok, err, skipped = store:write("backend", version, items, deleted, replace)
    if not ok then
        return nil, err
    end
    ok, err = _M.set_version(version)
    return ok, err, skipped
end

-- set_version records the version of the last push, which /status reports so that the
-- applier can tell a restarted (empty) instance from one that is up to date.
function _M.set_version(version)
    local ok, err = dict:safe_set("meta:version", version)
    if not ok then
        return nil, "store version: " .. tostring(err)
    end
    return true
end

function _M.version()
    return dict:get("meta:version") or 0
end

function _M.count()
    return #store:names()
end

-- one returns a stored backend as JSON, or nil.
function _M.one(name)
    return store:body(name)
end

-- list returns every stored backend as one JSON array.
function _M.list()
    local items = {}
    for _, n in ipairs(store:names()) do
        local raw = store:body(n)
        if raw then
            items[#items + 1] = raw
        end
    end
    return json.array(items)
end

return _M
