package nginx

import (
	"context"
	"net/http"
	"time"
)

// A reload drains kept-alive clients. When an old worker starts its graceful shutdown,
// nginx 1.22 closes its idle kept-alive connections at once; a client that got its last
// answer with "Connection: keep-alive" and sends its next request at that moment meets a
// closed socket. (Answers an old worker writes after that moment already say
// "Connection: close": nginx's header filter stops keep-alive in an exiting worker.)
// While the drain flag is up, every HTTP/1 answer also says "Connection: close"
// (restyplane.drain in Lua), so clients open a new connection for their next request.
//
// The flag goes up just before the master is signalled, with no wait: the master itself
// waits 100 ms (after parsing the conf) between starting the new workers and telling the
// old ones to shut down, and a client that sends requests back to back gets its "close"
// in that time. It comes down once the reload is confirmed, which means every old worker
// is shutting down and writes "close" itself.

// drainExpiryMargin is added to the flag's expiry beyond the longest reload, for the calls
// around it.
const drainExpiryMargin = time.Second

// drainClearTimeout bounds the call that lowers the flag; it runs on its own context
// because the reload's may be what ran out.
const drainClearTimeout = 5 * time.Second

// Drain raises the drain flag for ttl at most: until Undrain or ttl, every HTTP/1 answer
// asks its client to close the connection. The flag lives in shared memory, so every
// worker, of this conf and of the next, sees it.
func (c *AdminClient) Drain(ctx context.Context, ttl time.Duration) error {
	return c.do(ctx, http.MethodPost, "/drain", map[string]float64{"seconds": ttl.Seconds()}, nil)
}

// Undrain lowers the drain flag; kept-alive connections stay open again.
func (c *AdminClient) Undrain(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/drain", nil, nil)
}

// drain raises the flag for a reload. Its expiry covers the longest reload, a confirmation
// and a restore's second one, so that a restyplane that dies mid-reload leaves the proxy
// draining for that long and no longer. A failure is logged, not returned: draining only
// spares kept-alive clients a closed socket, and the reload matters more.
func (in *Instance) drain(ctx context.Context) {
	if err := in.admin.Drain(ctx, 2*in.opts.ReloadTimeout+drainExpiryMargin); err != nil {
		in.opts.Logger.Warn("raise the drain flag before a reload", "err", err)
	}
}

// undrain lowers the flag after a reload, confirmed or restored.
func (in *Instance) undrain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainClearTimeout)
	defer cancel()
	if err := in.admin.Undrain(ctx); err != nil {
		in.opts.Logger.Warn("lower the drain flag after a reload (it expires on its own)", "err", err)
	}
}
