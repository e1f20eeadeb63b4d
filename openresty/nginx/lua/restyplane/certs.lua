-- restyplane.certs keeps certificates in a shared dict and serves them from
-- ssl_certificate_by_lua, so that a rotated certificate needs no reload. Each TLS server
-- names its certificate; until one is pushed, nginx presents the files the conf names.
local ssl = require("ngx.ssl")
local json = require("restyplane.json")
local versioned = require("restyplane.versioned")

local store = versioned.new(ngx.shared.restyplane_certificates, "d")
local _M = {}

-- cache maps a certificate name to its parsed chain and key in this worker.
local cache = {}

local function valid_name(n)
    return type(n) == "string" and #n <= 128 and n:match("^[a-z0-9][a-z0-9._-]*$") ~= nil
end

-- put stores certificates stamped with version. The chain and key are stored together in
-- one value, so that a handshake never pairs the chain of one push with the key of another.
function _M.put(version, list, deleted, replace)
    local items = {}
    for i, c in ipairs(list) do
        if type(c) ~= "table" or not valid_name(c.name) then
            return nil, "a certificate needs a valid name"
        end
        if type(c.cert) ~= "string" or not ssl.parse_pem_cert(c.cert) then
            return nil, "certificate " .. c.name .. ": cert is not a PEM chain"
        end
        if type(c.key) ~= "string" or not ssl.parse_pem_priv_key(c.key) then
            return nil, "certificate " .. c.name .. ": key is not a PEM private key"
        end
        items[i] = { name = c.name, body = json.encode({ version = version, cert = c.cert, key = c.key }) }
    end
    return store:write("certificate", version, items, deleted, replace)
end

-- list describes the stored certificates, never their keys.
function _M.list()
    local out = {}
    for _, n in ipairs(store:names()) do
        out[#out + 1] = json.encode({ name = n, version = store:version(n) })
    end
    return json.array(out)
end

function _M.count()
    return #store:names()
end

-- load returns the worker's parsed copy of a certificate, parsing again only when its
-- version moved.
local function load(name)
    local ver = store:version(name)
    if not ver then
        return nil
    end
    local c = cache[name]
    if c and c.version == ver then
        return c
    end
    local d = json.decode(store:body(name) or "")
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
