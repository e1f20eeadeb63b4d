-- restyplane.json wraps cjson for the admin endpoint's answers.
local cjson = require("cjson.safe")

local _M = {}

_M.decode = cjson.decode
_M.null = cjson.null

-- encode encodes v; cjson writes an empty table as {}, so callers drop empty arrays
-- (Go reads a missing array as empty, but not an object).
function _M.encode(v)
    return cjson.encode(v)
end

-- array encodes a list of already encoded JSON values.
function _M.array(items)
    return "[" .. table.concat(items, ",") .. "]"
end

-- reply sends a JSON answer with a status.
function _M.reply(status, body)
    ngx.status = status
    ngx.header["Content-Type"] = "application/json"
    if type(body) ~= "string" then
        body = cjson.encode(body)
    end
    ngx.say(body)
    return ngx.exit(status)
end

-- fail sends {"error": message}.
function _M.fail(status, message)
    return _M.reply(status, { error = message })
end

return _M
