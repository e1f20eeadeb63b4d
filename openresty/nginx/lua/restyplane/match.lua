-- restyplane.match routes the requests of a server block whose locations have conditions
-- (a method, headers, query parameters, a scheme; Gateway API's matches). The block's locations are
-- named locations, and its one "location /" calls route: the request's path is looked up
-- as nginx would (the exact path, the regexes in order, then the prefixes from the
-- longest down, "/" last), each path's candidates come in precedence order, and the first
-- candidate whose conditions hold serves the request by ngx.exec. When none holds, the
-- request falls through to the next path, and is answered 404 when no path is left.
--
-- The tables come with nginx.conf (openresty/render/route.go), compiled there, decoded
-- once per reload in init: nothing is parsed per request, and regexes are compiled once
-- per worker (ngx.re's "o").
local cjson = require("cjson.safe")

local byte, sub = string.byte, string.sub
local re_find = ngx.re.find

local _M = {}

local tables = {}

local function check_regex(re)
    local _, _, err = re_find("", re, "jo")
    if err then
        error("restyplane.match: regex " .. re .. ": " .. err)
    end
end

-- init decodes the tables of a conf, given as the pieces of their JSON, and compiles their
-- regexes: a regex PCRE refuses fails the conf's test, not a request.
function _M.init(pieces)
    local t, err = cjson.decode(table.concat(pieces))
    if type(t) ~= "table" then
        error("restyplane.match: route tables: " .. tostring(err))
    end
    for _, b in ipairs(t) do
        local lists = {}
        for _, cs in pairs(b.exact or {}) do lists[#lists + 1] = cs end
        for _, cs in pairs(b.prefix or {}) do lists[#lists + 1] = cs end
        for _, r in ipairs(b.regex or {}) do
            check_regex(r.regex)
            lists[#lists + 1] = r.candidates
        end
        for _, cs in ipairs(lists) do
            for _, c in ipairs(cs) do
                for _, v in ipairs(c.headers or {}) do if v.regex then check_regex(v.regex) end end
                for _, v in ipairs(c.query or {}) do if v.regex then check_regex(v.regex) end end
            end
        end
    end
    tables = t
end

-- value_holds tests one condition on a value: a header's (nil when absent) or a query
-- parameter's (a table when repeated, whose first value counts; true without "=").
local function value_holds(c, v)
    if type(v) == "table" then
        v = v[1]
    end
    if v == true then
        v = ""
    end
    if type(v) ~= "string" then
        return false
    end
    if c.exact then
        return v == c.exact
    end
    return re_find(v, c.regex, "jo") ~= nil
end

-- holds tests a candidate's conditions; req caches the request's query arguments.
local function holds(c, req)
    if c.method and c.method ~= ngx.req.get_method() then
        return false
    end
    if c.scheme and c.scheme ~= ngx.var.scheme then
        return false
    end
    for _, h in ipairs(c.headers or {}) do
        if not value_holds(h, ngx.var[h.name]) then
            return false
        end
    end
    if c.query then
        if not req.args then
            req.args = ngx.req.get_uri_args()
        end
        for _, q in ipairs(c.query) do
            if not value_holds(q, req.args[q.name]) then
                return false
            end
        end
    end
    return true
end

-- first returns the named location of the first candidate that holds, or nil.
local function first(cs, req)
    if cs then
        for _, c in ipairs(cs) do
            if holds(c, req) then
                return c.location
            end
        end
    end
    return nil
end

-- pick returns the named location that serves the request in table t, or nil.
local function pick(t, uri)
    local req = {}
    local loc = t.exact and first(t.exact[uri], req)
    if loc then
        return loc
    end
    for _, r in ipairs(t.regex or {}) do
        if re_find(uri, r.regex, "jo") then
            loc = first(r.candidates, req)
            if loc then
                return loc
            end
        end
    end
    local p = t.prefix
    if not p then
        return nil
    end
    -- Prefixes follow the Ingress rule: /foo covers /foo, /foo/ and /foo/bar, so the
    -- candidates are the path itself and each part of it that ends before a "/".
    if uri ~= "/" then
        loc = first(p[uri], req)
        for i = #uri, 2, -1 do
            if loc then
                return loc
            end
            if byte(uri, i) == 47 then -- "/"
                loc = first(p[sub(uri, 1, i - 1)], req)
            end
        end
        if loc then
            return loc
        end
    end
    return first(p["/"], req)
end

-- route sends the request to the location of block n that serves it, or answers 404.
function _M.route(n)
    local t = tables[n]
    local loc = t and pick(t, ngx.var.uri)
    if not loc then
        return ngx.exit(ngx.HTTP_NOT_FOUND)
    end
    return ngx.exec(loc)
end

return _M
