-- External auth's sign-in redirect (policies). A 401 of the auth subrequest
-- reaches the named location that calls signin, which redirects to the sign-in URL with
-- rd=<the original URL> as ingress-nginx does: scheme and host as they are, the request
-- URI escaped, and no rd added when the sign-in URL's query carries one already.
--
-- The URL may name the variables of api.AuthVariables ($host, $escaped_request_uri…),
-- which api admitted and no other: each is read here from the request, never evaluated
-- as text. Control characters and spaces of the result are escaped, so that whatever the
-- client sent as its Host or URI stays inside the Location header.
local _M = {}

local function http_host()
    return ngx.var.http_host or ngx.var.host
end

local vars = {
    host = function() return ngx.var.host end,
    http_host = http_host,
    best_http_host = http_host,
    scheme = function() return ngx.var.scheme end,
    pass_access_scheme = function() return ngx.var.scheme end,
    request_uri = function() return ngx.var.request_uri end,
    escaped_request_uri = function() return ngx.escape_uri(ngx.var.request_uri) end,
}

-- expand replaces each listed variable of url with its value; a name not listed stays
-- as it is (api admits none).
local function expand(url)
    return (url:gsub("%$([%w_]+)", function(name)
        local f = vars[name]
        if f then
            return f() or ""
        end
    end))
end

function _M.signin(url)
    local has_rd = url:find("[?&]rd=") ~= nil
    url = expand(url)
    if not has_rd then
        local sep = url:find("?", 1, true) and "&" or "?"
        url = url .. sep .. "rd=" .. ngx.var.scheme .. "://" .. http_host() .. ngx.escape_uri(ngx.var.request_uri)
    end
    url = url:gsub("[%c ]", function(c) return string.format("%%%02X", c:byte()) end)
    return ngx.redirect(url, 302)
end

return _M
