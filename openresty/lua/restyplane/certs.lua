-- restyplane.certs keeps certificates in a shared dict and serves them from
-- ssl_certificate_by_lua, so that a rotated certificate needs no reload. Each TLS server
-- names its certificate; until one is pushed, nginx presents the files the conf names.
local ssl = require("ngx.ssl")
local json = require("restyplane.json")

local dict = ngx.shared.restyplane_certificates
local _M = {}

-- cache maps a certificate name to its parsed chain and key in this worker.
local cache = {}

local function valid_name(n)
    return type(n) == "string" and #n <= 128 and n:match("^[a-z0-9][a-z0-9._-]*$") ~= nil
end

local function names()
    local out = {}
    for _, k in ipairs(dict:get_keys(0)) do
        if k:sub(1, 2) == "v:" then
            out[#out + 1] = k:sub(3)
        end
    end
    table.sort(out)
    return out
end

local function delete(name)
    dict:delete("v:" .. name)
    dict:delete("d:" .. name)
end

-- put stores certificates stamped with version. The chain and key are stored together in
-- one value, so that a handshake never pairs the chain of one push with the key of another.
function _M.put(version, list, deleted, replace)
    for _, c in ipairs(list) do
        if type(c) ~= "table" or not valid_name(c.name) then
            return nil, "a certificate needs a valid name"
        end
        if type(c.cert) ~= "string" or not ssl.parse_pem_cert(c.cert) then
            return nil, "certificate " .. c.name .. ": cert is not a PEM chain"
        end
        if type(c.key) ~= "string" or not ssl.parse_pem_priv_key(c.key) then
            return nil, "certificate " .. c.name .. ": key is not a PEM private key"
        end
    end
    if replace then
        local keep = {}
        for _, c in ipairs(list) do
            keep[c.name] = true
        end
        for _, n in ipairs(names()) do
            if not keep[n] then
                delete(n)
            end
        end
    end
    for _, c in ipairs(list) do
        local ok, err = dict:safe_set("d:" .. c.name, json.encode({ version = version, cert = c.cert, key = c.key }))
        if ok then
            ok, err = dict:safe_set("v:" .. c.name, version)
        end
        if not ok then
            return nil, "store certificate " .. c.name .. ": " .. tostring(err)
        end
    end
    for _, n in ipairs(deleted) do
        if type(n) == "string" then
            delete(n)
        end
    end
    return true
end

-- list describes the stored certificates, never their keys.
function _M.list()
    local out = {}
    for _, n in ipairs(names()) do
        out[#out + 1] = json.encode({ name = n, version = dict:get("v:" .. n) })
    end
    return json.array(out)
end

function _M.count()
    return #names()
end

-- load returns the worker's parsed copy of a certificate, parsing again only when its
-- version moved.
local function load(name)
    local ver = dict:get("v:" .. name)
    if not ver then
        return nil
    end
    local c = cache[name]
    if c and c.version == ver then
        return c
    end
    local d = json.decode(dict:get("d:" .. name) or "")
    if type(d) ~= "table" then
        return nil
    end
    local chain, err = ssl.parse_pem_cert(d.cert)
    if not chain then
        ngx.log(ngx.ERR, "restyplane: certificate ", name, ": ", err)
        return nil
    end
    local key
    key, err = ssl.parse_pem_priv_key(d.key)
    if not key then
        ngx.log(ngx.ERR, "restyplane: certificate ", name, " key: ", err)
        return nil
    end
    c = { version = d.version, chain = chain, key = key }
    cache[name] = c
    return c
end

-- serve presents the pushed certificate called name, if there is one.
function _M.serve(name)
    local c = load(name)
    if not c then
        return
    end
    local ok, err = ssl.clear_certs()
    if ok then
        ok, err = ssl.set_cert(c.chain)
    end
    if ok then
        ok, err = ssl.set_priv_key(c.key)
    end
    if not ok then
        ngx.log(ngx.ERR, "restyplane: serve certificate ", name, ": ", err)
        return ngx.exit(ngx.ERROR)
    end
end

return _M
