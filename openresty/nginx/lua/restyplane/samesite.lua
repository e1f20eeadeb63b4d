-- restyplane.samesite tells whether a browser takes a cookie's SameSite=None as written.
-- Some browsers reject such a cookie (Chrome and Chromium 51-66, UC Browser before
-- 12.13.2) and others read it as Strict (every browser on iOS 12, Safari and web views on
-- macOS 10.14): for them conditionalSameSiteNone leaves the attribute out.
local re_find = ngx.re.find
local re_match = ngx.re.match

local _M = {}

local function found(ua, re)
    return re_find(ua, re, "jo") ~= nil
end

-- apple_misreads: iOS 12, or macOS 10.14's Safari or a web view (which names no browser).
local function apple_misreads(ua)
    if found(ua, [[\(iP.+; CPU .*OS 12[_\d]*.*\) AppleWebKit/]]) then
        return true
    end
    if not found(ua, [[\(Macintosh;.*Mac OS X 10_14[_\d]*.*\) AppleWebKit/]]) then
        return false
    end
    local safari = found(ua, [[Version/.* Safari/]]) and not found(ua, [[Chrom(?:e|ium)]])
    local webview = found(ua, [[^Mozilla/[\.\d]+ \(Macintosh;.*Mac OS X [_\d]+\) AppleWebKit/[\.\d]+ \(KHTML, like Gecko\)$]])
    return safari or webview
end

-- old_uc: UC Browser before 12.13.2.
local function old_uc(ua)
    local m = re_match(ua, [[UCBrowser/(\d+)\.(\d+)\.(\d+)]], "jo")
    if not m then
        return false
    end
    local v = { tonumber(m[1]), tonumber(m[2]), tonumber(m[3]) }
    local floor = { 12, 13, 2 }
    for i = 1, 3 do
        if v[i] ~= floor[i] then
            return v[i] < floor[i]
        end
    end
    return false
end

-- none_ok reports whether the browser of the User-Agent ua takes SameSite=None.
function _M.none_ok(ua)
    if type(ua) ~= "string" or ua == "" then
        return true
    end
    if apple_misreads(ua) or old_uc(ua) then
        return false
    end
    return not found(ua, [[Chrom(?:e|ium)/(?:5[1-9]|6[0-6])\.]])
end

return _M
