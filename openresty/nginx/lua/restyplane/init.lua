-- restyplane.init runs in the master when nginx loads a conf (init_by_lua) and in each
-- worker as it starts (init_worker_by_lua).
local _M = {}

local conf = { generation = "" }

-- init records the conf's generation and loads every module now, in the master, so that
-- workers (which may run as an unprivileged user) never need to read a Lua file.
function _M.init(c)
    conf.generation = c.generation or ""
    require("cjson.safe")
    require("ngx.balancer")
    require("ngx.ssl")
    require("restyplane.json")
    require("restyplane.rr")
    require("restyplane.ewma")
    require("restyplane.chash")
    require("restyplane.samesite")
    require("restyplane.affinity")
    require("restyplane.backend")
    require("restyplane.backends")
    require("restyplane.canary")
    require("restyplane.balancer")
    require("restyplane.certs")
    require("restyplane.count")
    require("restyplane.counters")
    require("restyplane.finish")
    require("restyplane.cidr")
    require("restyplane.limit")
    require("restyplane.policy")
    require("restyplane.admin")
    -- Policies: a worker that had to read these itself answered 500 where the
    -- prefix is under a 0700 data dir.
    require("restyplane.auth")
    require("restyplane.cors")
    require("restyplane.redirect")
    require("restyplane.match")
    require("restyplane.mirror")
end

-- init_worker seeds each worker differently: forked workers would otherwise share one
-- random sequence, and canary splits and EWMA's two choices would move in lockstep. It
-- starts the timer that moves the worker's request counts to the shared dict.
function _M.init_worker()
    math.randomseed(ngx.now() * 1000 + ngx.worker.pid())
    require("restyplane.count").start()
end

-- generation is the generation of the conf this worker runs.
function _M.generation()
    return conf.generation
end

return _M
