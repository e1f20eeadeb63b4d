-- restyplane.admin serves the admin endpoint on the instance's unix socket: backends,
-- certificates and location policies pushed by the applier, the generation and version
-- this worker runs, health,
-- request counters, the drain flag a reload raises and, without nginx's stub_status module,
-- a stand-in for it.
local json = require("restyplane.json")
local backends = require("restyplane.backends")
local certs = require("restyplane.certs")
local counters = require("restyplane.counters")
local drain = require("restyplane.drain")
local init = require("restyplane.init")
local policy = require("restyplane.policy")

local _M = {}

local function body()
    ngx.req.read_body()
    local data = ngx.req.get_body_data()
    local v = data and json.decode(data)
    if type(v) ~= "table" or type(v.version) ~= "number" then
        return nil
    end
    return v
end

-- applied_at is the time now, in seconds with six decimals as a string (a JSON number of
-- cjson keeps 14 digits, a tenth of a millisecond here): an agent that reads a push's
-- answer later than it came (see push) learns from it when the push took effect. To the
-- microsecond where LuaJIT's FFI can read the clock, else to the millisecond.
local applied_at
do
    local ok, ffi = pcall(require, "ffi")
    if ok and pcall(ffi.cdef, "typedef struct { long sec; long usec; } rp_timeval; int gettimeofday(rp_timeval *tv, void *tz);") then
        local tv = ffi.new("rp_timeval")
        applied_at = function()
            ffi.C.gettimeofday(tv, nil)
            return string.format("%d.%06d", tonumber(tv.sec), tonumber(tv.usec))
        end
    else
        applied_at = function()
            ngx.update_time()
            return string.format("%.6f", ngx.now())
        end
    end
end

local function list(v)
    if type(v) == "table" then
        return v
    end
    return {}
end

-- push decodes {"version": n, "<kind>": [...], "deleted": [...], "replace": bool} and
-- hands it to store (backends or certs). A backends push with "countersEpoch": n also
-- answers the backend counters of that epoch, as GET /backend-counters?epoch=n would: an
-- agent reports them after every apply, and a second request for them cost the worker
-- and the agent a round trip per change. Every answer says when the push took effect
-- (appliedAt).
local function push(store, kind)
    local v = body()
    if not v then
        return json.fail(400, "want a JSON object with a numeric version")
    end
    local ok, err, skipped = store.put(v.version, list(v[kind]), list(v.deleted), v.replace == true)
    if ok then
        ok, err = backends.set_version(v.version)
    end
    if not ok then
        return json.fail(400, err)
    end
    -- An empty table would encode as {}: leave the list out when nothing was skipped.
    if skipped and #skipped == 0 then
        skipped = nil
    end
    local counted
    if kind == "backends" and type(v.countersEpoch) == "number" then
        counted = counters.backends(v.countersEpoch)
    end
    return json.reply(200, { version = v.version, skipped = skipped, counters = counted, appliedAt = applied_at() })
end

local function status()
    local master = 0
    local ok, process = pcall(require, "ngx.process")
    if ok then
        master = process.get_master_pid() or 0
    end
    return json.reply(200, {
        generation = init.generation(),
        pid = ngx.worker.pid(),
        masterPid = master,
        version = backends.version(),
        backends = backends.count(),
        certificates = certs.count(),
        draining = drain.active(),
    })
end

-- drain_on decodes {"seconds": n} and raises the drain flag for that long at most. The
-- bound is the caller's to choose (it knows how long its reload may take), within a day.
local function drain_on()
    ngx.req.read_body()
    local data = ngx.req.get_body_data()
    local v = data and json.decode(data)
    if type(v) ~= "table" or type(v.seconds) ~= "number" or v.seconds <= 0 or v.seconds > 86400 then
        return json.fail(400, "want a JSON object with seconds between 0 and 86400")
    end
    local ok, err = drain.set(v.seconds)
    if not ok then
        return json.fail(500, err)
    end
    return json.reply(200, { draining = true })
end

-- stub_status answers in the module's format when nginx lacks it: it knows the requests
-- it counted, not the connections.
local function stub_status()
    local n = counters.total()
    ngx.header["Content-Type"] = "text/plain"
    ngx.say("Active connections: 0 ")
    ngx.say("server accepts handled requests")
    ngx.say(" 0 0 ", n, " ")
    ngx.say("Reading: 0 Writing: 0 Waiting: 0 ")
end

function _M.serve()
    local method, uri = ngx.req.get_method(), ngx.var.uri
    if method == "GET" then
        if uri == "/health" then
            return json.reply(200, { status = "ok" })
        elseif uri == "/status" then
            return status()
        elseif uri == "/backends" then
            return json.reply(200, backends.list())
        elseif uri == "/certificates" then
            return json.reply(200, certs.list())
        elseif uri == "/policies" then
            local names = {}
            for i, n in ipairs(policy.list()) do
                names[i] = json.encode(n)
            end
            return json.reply(200, json.array(names))
        elseif uri == "/counters" then
            return json.reply(200, counters.snapshot())
        elseif uri == "/backend-counters" then
            local epoch = tonumber(ngx.var.arg_epoch)
            if not epoch then
                return json.fail(400, "want ?epoch=n")
            end
            return json.reply(200, counters.backends(epoch))
        elseif uri == "/stub_status" then
            return stub_status()
        end
        local name = uri:match("^/backends/([^/]+)$")
        if name then
            local raw = backends.one(name)
            if not raw then
                return json.fail(404, "backend " .. name .. " has not been pushed")
            end
            return json.reply(200, raw)
        end
    elseif method == "POST" then
        if uri == "/backends" then
            return push(backends, "backends")
        elseif uri == "/certificates" then
            return push(certs, "certificates")
        elseif uri == "/policies" then
            return push(policy, "policies")
        elseif uri == "/drain" then
            return drain_on()
        end
    elseif method == "DELETE" and uri == "/drain" then
        drain.clear()
        return json.reply(200, { draining = false })
    end
    return json.fail(404, "no such admin resource: " .. method .. " " .. uri)
end

return _M
