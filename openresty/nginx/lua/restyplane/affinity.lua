-- restyplane.affinity pins clients to peers with a cookie (api.Affinity). Persistent, the
-- cookie names the peer (a hash of its address): a client keeps its peer while it exists,
-- however many peers join. Balanced, the cookie holds a random key that consistent hashing
-- maps onto the peers: a peer that joins takes over the keys next to its points, so some
-- clients move to it.
local chash = require("restyplane.chash")
local samesite = require("restyplane.samesite")

local _M = {}
local mt = { __index = _M }

-- The attributes' grammars, as api checks them: a second wall, so that a value that slipped
-- through can never add an attribute or a header.
local function matching(v, pattern)
    if type(v) == "string" and v ~= "" and v:find(pattern) then
        return v
    end
    return nil
end

local function seconds(v)
    v = tonumber(v)
    if v and v >= 1 and v <= 2147483647 and v == math.floor(v) then
        return v
    end
    return nil
end

local same_sites = { Strict = true, Lax = true, None = true }

-- new returns the affinity of a backend (its pushed JSON a) over its peers, nil without one.
function _M.new(a, peers, by_cookie)
    if type(a) ~= "table" or not matching(a.cookie, "^[%w_-]+$") then
        return nil
    end
    local self = setmetatable({
        cookie = a.cookie,
        var = "cookie_" .. a.cookie,
        balanced = a.mode == "balanced",
        path = matching(a.path, "^/[%w%._~!&()*+,=:@%%/-]*$") or "/",
        domain = matching(a.domain, "^[%w][%w%.-]*$"),
        samesite = same_sites[a.sameSite] and a.sameSite or nil,
        conditional = a.conditionalSameSiteNone == true,
        expires = seconds(a.expires),
        max_age = seconds(a.maxAge),
        secure = a.secure == true,
        change_on_failure = a.changeOnFailure == true,
        by_cookie = by_cookie,
    }, mt)
    if self.balanced then
        self.ring = chash.new(peers)
    end
    return self
end

local none_tried = {}

-- pinned returns the peer the request's cookie pins it to and the cookie's value, nil
-- when it carries none, or one that names no peer.
function _M:pinned()
    local v = ngx.var[self.var]
    if not v then
        return nil
    end
    if not self.balanced then
        return self.by_cookie[v], v
    end
    if #v < 16 or #v > 32 or v:find("[^0-9a-f]") then
        return nil
    end
    return self.ring:pick(none_tried, v), v
end

-- fresh returns, for a balanced affinity, a peer not in tried and a new key that maps to
-- it: the key a client keeps in its cookie.
function _M:fresh(tried)
    local key, p
    for _ = 1, 16 do
        key = string.format("%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
        p = self.ring:pick(none_tried, key)
        if p and not tried[p.id] then
            return p, key
        end
    end
    -- Every key tried landed on a tried peer: the next peer along the ring serves.
    return self.ring:pick(tried, key), key
end

-- choose picks the peer of an attempt (st is the balancer's state of the request) and the
-- cookie value to send, nil for none. The first attempt goes to the pinned peer; a client
-- without one, or one that changes peers on failure, gets a new peer and a cookie naming
-- it; a retry of any other moves on, and its cookie keeps the pinned peer. A persistent
-- affinity leaves picking a new peer to the backend's balancer: (nil, true) says to send
-- the cookie of the peer it picks.
function _M:choose(st)
    if #st.picked == 0 and st.pinned then
        return st.pinned, nil
    end
    local renew = not st.pinned or self.change_on_failure
    if not self.balanced then
        return nil, renew
    end
    if renew then
        return self:fresh(st.tried)
    end
    return self.ring:pick(st.tried, st.key), nil
end

-- set_cookie is the Set-Cookie value that pins the client with value.
function _M:set_cookie(value)
    local c = { self.cookie, "=", value, "; Path=", self.path }
    if self.domain then
        c[#c + 1] = "; Domain=" .. self.domain
    end
    if self.expires then
        c[#c + 1] = "; Expires=" .. ngx.http_time(ngx.time() + self.expires)
    end
    if self.max_age then
        c[#c + 1] = "; Max-Age=" .. self.max_age
    end
    if self.secure or ngx.var.https == "on" then
        c[#c + 1] = "; Secure"
    end
    c[#c + 1] = "; HttpOnly"
    local s = self.samesite
    if s and not (s == "None" and self.conditional and not samesite.none_ok(ngx.var.http_user_agent)) then
        c[#c + 1] = "; SameSite=" .. s
    end
    return table.concat(c)
end

return _M
