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

-- prefix_path is the path of a redirect that replaces the matched prefix of a prefix
-- location, n bytes of the request's path, by to, as Gateway API's ReplacePrefixMatch
-- does: /foo/bar with prefix /foo and to /xyz is /xyz/bar, /foo is /xyz. The rest of the
-- path is nginx's decoded $uri, escaped again, so that nothing in it (a CR or LF from
-- %0D%0A) reaches the Location header as it is.
function _M.prefix_path(n, to)
    local rest = ngx.escape_uri(string.sub(ngx.var.uri, n + 1), 0)
    if rest == "" then
        return to
    end
    return (string.gsub(to, "/+$", "")) .. rest
end

return _M
