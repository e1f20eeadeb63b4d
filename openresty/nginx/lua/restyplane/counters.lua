-- restyplane.counters counts requests and 5xx answers per server, and per backend the
-- requests that reached an upstream, those the upstream answered with a 5xx, and the
-- distinct client addresses among the latter, in a shared dict, for the applier's
-- automatic rollback. The counts are cumulative since nginx started; the applier compares
-- two readings. Distinct clients are counted per watch epoch (the revision the applier
-- watches, set by GET /backend-counters?epoch=n): one key per backend and client, added
-- once, so the structure is bounded by the dict, whose LRU drops the oldest keys.
local dict = ngx.shared.restyplane_counters

local _M = {}

-- clientTTL keeps a (backend, client) key long enough for any watch window.
local clientTTL = 3600

-- lastStatus is the status of the last upstream attempt ("502, 200" → 200), or nil when
-- no upstream answered: statuses nginx made up for the client do not count.
local function lastStatus()
    local s = ngx.var.upstream_status
    if not s then
        return nil
    end
    return tonumber(s:match("(%d+)%s*$"))
end

function _M.log()
    local s = ngx.var.rp_server
    if s and s ~= "" then
        dict:incr("r:" .. s, 1, 0)
        if ngx.status >= 500 then
            dict:incr("e:" .. s, 1, 0)
        end
    end
    local st = ngx.ctx.rp
    local status = lastStatus()
    if not st or not status then
        return
    end
    local b = st.backend.name
    dict:incr("q:" .. b, 1, 0)
    if status >= 500 then
        dict:incr("f:" .. b, 1, 0)
        local epoch = dict:get("w:epoch") or 0
        if dict:add("c:" .. epoch .. ":" .. b .. ":" .. (ngx.var.remote_addr or ""), true, clientTTL) then
            dict:incr("C:" .. epoch .. ":" .. b, 1, 0)
        end
    end
end

-- snapshot returns { server = { requests = n, errors = m } }.
function _M.snapshot()
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
                c.clients = dict:get("C:" .. epoch .. ":" .. name) or 0
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
