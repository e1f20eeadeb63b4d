-- restyplane.counters reads the request counters restyplane.count keeps in a shared dict,
-- for the applier's automatic rollback. The counts are cumulative since nginx started; the
-- applier compares two readings. Distinct failing clients are counted per watch epoch (the
-- revision the applier watches, set by GET /backend-counters?epoch=n): one key per backend
-- and client, added once, in a dict of their own (restyplane_clients), which a reading
-- never walks and whose LRU drops the oldest keys. A reading adds the serving worker's own counts first; the other workers'
-- arrive within count.FLUSH seconds.
local count = require("restyplane.count")

local dict = ngx.shared.restyplane_counters
local clients = ngx.shared.restyplane_clients

local _M = {}

-- snapshot returns { server = { requests = n, errors = m } }.
function _M.snapshot()
    count.flush()
    local out = {}
    for _, k in ipairs(dict:get_keys(0)) do
        local kind, name = k:sub(1, 1), k:sub(3)
        if kind == "r" or kind == "e" then
            local c = out[name] or { requests = 0, errors = 0 }
            out[name] = c
            if kind == "r" then
                c.requests = dict:get(k) or 0
            else
                c.errors = dict:get(k) or 0
            end
        end
    end
    return out
end

-- backends sets the watch epoch and returns { backend = { requests, errors, clients } },
-- clients being the distinct failing client addresses counted in that epoch.
function _M.backends(epoch)
    count.flush()
    if dict:get("w:epoch") ~= epoch then
        dict:set("w:epoch", epoch)
    end
    local out = {}
    for _, k in ipairs(dict:get_keys(0)) do
        local kind, name = k:sub(1, 1), k:sub(3)
        if kind == "q" or kind == "f" then
            local c = out[name] or { requests = 0, errors = 0, clients = 0 }
            out[name] = c
            if kind == "q" then
                c.requests = dict:get(k) or 0
            else
                c.errors = dict:get(k) or 0
                c.clients = clients:get("C:" .. epoch .. ":" .. name) or 0
            end
        end
    end
    return out
end

-- total is the number of requests counted, for /stub_status without nginx's module.
function _M.total()
    local n = 0
    for _, c in pairs(_M.snapshot()) do
        n = n + c.requests
    end
    return n
end

return _M
