-- The www redirect (policies): a request for a www partner name goes, with a
-- 308, to the same scheme, the server's hostname, the port the client asked for (from
-- its Host header, so that a load balancer's port is kept) and the same request URI.
local _M = {}

function _M.www(host)
    local port = (ngx.var.http_host or ""):match(":(%d+)$")
    if port then
        host = host .. ":" .. port
    end
    return ngx.redirect(ngx.var.scheme .. "://" .. host .. ngx.var.request_uri, 308)
end

return _M
