-- restyplane.canary decides, once per request to a backend with a canary, whether the
-- canary's alternative backend serves it.
local backends = require("restyplane.backends")

local _M = {}

-- choose returns the backend that serves the request, primary or its alternative: a header
-- or cookie that says "always" or "never" (or the header's configured value) decides
-- first, then the weight.
function _M.choose(primary)
    local c = primary.canary
    if not c then
        return primary
    end
    local alt = backends.get(c.backend)
    if not alt or #alt.peers == 0 then
        return primary
    end
    if c.header_var then
        local v = ngx.var[c.header_var]
        if v and c.header_value then
            if v == c.header_value then
                return alt
            end
        elseif v == "always" then
            return alt
        elseif v == "never" then
            return primary
        end
    end
    if c.cookie_var then
        local v = ngx.var[c.cookie_var]
        if v == "always" then
            return alt
        elseif v == "never" then
            return primary
        end
    end
    if c.weight > 0 and math.random(100) <= c.weight then
        return alt
    end
    return primary
end

return _M
