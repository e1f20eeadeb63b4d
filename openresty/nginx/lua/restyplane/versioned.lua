-- restyplane.versioned keeps named objects in a shared dict for backends and certs: each
-- object's body under "<tag>:<name>" and its version under "v:<name>". Readers check the
-- version first, so a writer stores the body before the version: whoever sees the new
-- version finds the new body.
local _M = {}
local mt = { __index = _M }

-- new returns the store of dict whose bodies go under tag.
function _M.new(dict, tag)
    return setmetatable({ dict = dict, prefix = tag .. ":" }, mt)
end

-- names lists the stored names, sorted.
function _M:names()
    local out = {}
    for _, k in ipairs(self.dict:get_keys(0)) do
        if k:sub(1, 2) == "v:" then
            out[#out + 1] = k:sub(3)
        end
    end
    table.sort(out)
    return out
end

-- key is the dict key of name's version: a reader that keeps it with its copy of the
-- object checks the version without building the key on every request.
function _M.key(name)
    return "v:" .. name
end

-- version returns the stored version of name, or nil; key, when given, is _M.key(name).
function _M:version(name, key)
    return self.dict:get(key or "v:" .. name)
end

-- body returns the stored body of name, or nil.
function _M:body(name)
    return self.dict:get(self.prefix .. name)
end

function _M:delete(name)
    self.dict:delete("v:" .. name)
    self.dict:delete(self.prefix .. name)
end

-- write stores items ({ name = ..., body = ... }, bodies already encoded) at version and
-- deletes the deleted names; with replace, every other stored object goes first (the full
-- push after a restart). An item the dict cannot hold (it is full) is left as it was and
-- returned in the skipped list ({ name = ..., reason = ... }), so that one object cannot
-- hold back the others. what names the kind in reasons.
function _M:write(what, version, items, deleted, replace)
    if replace then
        local keep = {}
        for _, it in ipairs(items) do
            keep[it.name] = true
        end
        for _, n in ipairs(self:names()) do
            if not keep[n] then
                self:delete(n)
            end
        end
    end
    local skipped = {}
    for _, it in ipairs(items) do
        local old = self.dict:get(self.prefix .. it.name)
        local ok, err = self.dict:safe_set(self.prefix .. it.name, it.body)
        if ok then
            ok, err = self.dict:safe_set("v:" .. it.name, version)
            if not ok and old then
                -- The body moved but not its version: put the old body back.
                self.dict:safe_set(self.prefix .. it.name, old)
            end
        end
        if not ok then
            ngx.log(ngx.ERR, "restyplane: store ", what, " ", it.name, ": ", tostring(err))
            skipped[#skipped + 1] = { name = it.name, reason = "store " .. what .. ": " .. tostring(err) }
        end
    end
    for _, n in ipairs(deleted) do
        if type(n) == "string" then
            self:delete(n)
        end
    end
    return true, nil, skipped
end

return _M
