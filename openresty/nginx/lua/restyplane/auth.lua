-- External auth's sign-in redirect (policies). A 401 of the auth subrequest
-- reaches the named location that calls signin, which redirects to the sign-in URL with
-- rd=<the original URL> as ingress-nginx does: scheme and host as they are, the request
-- URI escaped, and no rd added when the sign-in URL's query carries one already.
local _M = {}

function _M.signin(url)
    if not url:find("[?&]rd=") then
        local sep = url:find("?", 1, true) and "&" or "?"
        local host = ngx.var.http_host or ngx.var.host
        url = url .. sep .. "rd=" .. ngx.var.scheme .. "://" .. host .. ngx.escape_uri(ngx.var.request_uri)
    end
    return ngx.redirect(url, 302)
end

return _M
