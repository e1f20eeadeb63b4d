-- restyplane.counters counts requests and 5xx answers per server in a shared dict, for the
-- applier's automatic rollback. The counts are cumulative since nginx started; the applier
-- compares two readings.
local dict = ngx.shared.restyplane_counters

local _M = {}

function _M.log()
    local s = ngx.var.rp_server
    if not s or s == "" then
        return
    end
    dict:incr("r:" .. s, 1, 0)
    if ngx.status >= 500 then
        dict:incr("e:" .. s, 1, 0)
    end
end

-- snapshot returns { server = { requests = n, errors = m } }.
function _M.snapshot()
    local out = {}
    for _, k in ipairs(dict:get_keys(0)) do
        local kind, name = k:sub(1, 1), k:sub(3)
        local c = out[name] or { requests = 0, errors = 0 }
        out[name] = c
        if kind == "r" then
            c.requests = dict:get(k) or 0
        elseif kind == "e" then
            c.errors = dict:get(k) or 0
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
