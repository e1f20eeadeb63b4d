-- CORS (policies). rewrite runs in a location's rewrite phase with the policy as
-- a JSON string, decoded once per worker. A request whose Origin the policy allows gets
-- its CORS headers through the location's add_header directives (the $rp_cors_*
-- variables); a preflight (OPTIONS) is answered here, 204, before auth and the upstream.
-- Origins are compared as strings: an exact origin by table lookup, a wildcard one
-- (https://*.example.com) by its prefix and suffix around one DNS label. Under Gateway
-- API's rules any origin ("*") with credentials is answered with the request's Origin, as
-- that spec asks; under ingress-nginx's it is answered "*", as ingress-nginx does, which
-- browsers refuse for credentialed requests: no site gets a user's credentials by default.
local cjson = require("cjson.safe")

local _M = {}

local confs = {}

local function decode(json)
    local c = confs[json]
    if c == nil then
        c = cjson.decode(json) or { methods = "", headers = "", expose = "", maxAge = "0" }
        confs[json] = c
    end
    return c
end

local function allowed(c, origin)
    if c.any then
        return true
    end
    if c.exact and c.exact[origin] == true then
        return true
    end
    for _, w in ipairs(c.wild or {}) do
        local p, s = w.prefix, w.suffix
        if #origin > #p + #s and origin:sub(1, #p) == p and origin:sub(-#s) == s then
            local labels = origin:sub(#p + 1, #origin - #s)
            if labels:find("^[a-z0-9][a-z0-9-]*$") then
                return true
            end
            -- Gateway API's rules: any number of labels, none empty.
            if c.deep and labels:find("^[a-z0-9][a-z0-9.-]*$") and not labels:find("%.%.")
                and labels:sub(-1) ~= "." then
                return true
            end
        end
    end
    return false
end

-- asked is what a preflight is allowed: the list, or for "*" what the preflight asks for
-- (nginx has parsed the request header, so it holds no line break), "*" when it asks for
-- nothing.
local function asked(list, ask)
    if list == "*" and ask ~= nil and ask ~= "" then
        return ask
    end
    return list
end

function _M.rewrite(json)
    local origin = ngx.var.http_origin
    if origin == nil or origin == "" then
        return
    end
    local c = decode(json)
    if not allowed(c, origin) then
        if c.refuse and ngx.req.get_method() == "OPTIONS" and ngx.var.http_access_control_request_method then
            return ngx.exit(ngx.HTTP_FORBIDDEN) -- a preflight refused, without CORS headers
        end
        return
    end
    local v = ngx.var
    if c.any and not (c.credentials and c.refuse) then
        v.rp_cors_origin = "*"
    else
        v.rp_cors_origin = origin
        v.rp_cors_vary = "Origin"
    end
    if c.credentials then
        v.rp_cors_credentials = "true"
    end
    -- The location's set made it empty: an empty list needs no write.
    if c.expose ~= "" then
        v.rp_cors_expose = c.expose
    end
    if ngx.req.get_method() ~= "OPTIONS" then
        return
    end
    ngx.status = 204
    ngx.header["Access-Control-Allow-Methods"] = asked(c.methods, v.http_access_control_request_method)
    ngx.header["Access-Control-Allow-Headers"] = asked(c.headers, v.http_access_control_request_headers)
    ngx.header["Access-Control-Max-Age"] = c.maxAge
    ngx.header["Content-Type"] = "text/plain; charset=utf-8"
    ngx.header["Content-Length"] = 0
    ngx.send_headers()
    return ngx.exit(ngx.HTTP_OK)
end

return _M
