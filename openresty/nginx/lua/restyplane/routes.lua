-- restyplane.routes names the backend of a request that a shared prefix block answers.
-- Prefix locations of a server that differ only in their backend share one nginx block
-- (openresty/share.go): its regex captures the prefix that matched in $rp_prefix, and
-- $rp_routes lists "<prefix> <backend>" pairs.
local _M = {}

-- parsed holds each route list decoded once per worker. The lists are nginx.conf's, one
-- per shared block, and the workers a reload starts begin empty.
local parsed = {}

-- backend returns the backend that list pairs with prefix, or nil.
function _M.backend(list, prefix)
    if not list or list == "" or not prefix then
        return nil
    end
    local t = parsed[list]
    if not t then
        t = {}
        for p, b in list:gmatch("(%S+) (%S+)") do
            t[p] = b
        end
        parsed[list] = t
    end
    return t[prefix]
end

return _M
