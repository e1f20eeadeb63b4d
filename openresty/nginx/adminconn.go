package nginx

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/restyplane/restyplane/internal/quietconn"
)

// adminTimeout bounds one admin request, as the HTTP clients' Timeout does.
const adminTimeout = 10 * time.Second

// maxAdminAnswer bounds the answer read from the admin endpoint.
const maxAdminAnswer = 64 << 20

// keptConn is one kept-alive HTTP/1.1 connection to the admin socket, for the requests
// made at every change: pushes and counter reads. A new connection costs a busy worker an
// accept before it reads the push. net/http's transport also hands each request to two
// goroutines of its own, a writer and a reader, and on a core that fifty agents share
// each handoff waited for its turn: with the transport's machinery, a fifth of an agent's
// CPU on the way of a change. Here the caller writes the request and reads the answer
// itself (http.ReadResponse parses it), on a socket whose reads and writes do not wake
// the runtime's monitor thread (quietconn). One request at a time: the applier's pushes
// and the reports' counter reads take turns. Any worker of any generation will do, since
// shared memory outlives a reload.
type keptConn struct {
	socket string
	mu     sync.Mutex
	conn   net.Conn
	br     *bufio.Reader
}

// roundTrip sends one request and returns the answer's status and body. A request that
// failed on a kept-alive connection before any answer came is sent once more on a new
// one: nginx closes idle connections (keepalive_timeout, or a worker that a reload
// retired), and pushes and counter reads may be sent twice.
func (k *keptConn) roundTrip(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for retried := false; ; retried = true {
		reused := k.conn != nil
		if !reused {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", k.socket)
			if err != nil {
				return 0, nil, err
			}
			k.conn = quietconn.Wrap(c)
			k.br = bufio.NewReader(k.conn)
		}
		status, data, answered, err := k.once(ctx, method, path, body)
		if err == nil {
			return status, data, nil
		}
		k.conn.Close()
		k.conn = nil
		if !reused || answered || retried || ctx.Err() != nil {
			return 0, nil, err
		}
	}
}

// once sends the request on the held connection and reads its answer; answered says
// whether any of the answer came, after which the request is never sent again.
func (k *keptConn) once(ctx context.Context, method, path string, body []byte) (status int, data []byte, answered bool, err error) {
	deadline := time.Now().Add(adminTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := k.conn.SetDeadline(deadline); err != nil {
		return 0, nil, false, err
	}
	stop := context.AfterFunc(ctx, func() { k.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := make([]byte, 0, 160+len(body))
	req = fmt.Appendf(req, "%s %s HTTP/1.1\r\nHost: admin\r\n", method, path)
	if body != nil {
		req = fmt.Appendf(req, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	req = append(append(req, "\r\n"...), body...)
	if _, err := k.conn.Write(req); err != nil {
		return 0, nil, false, err
	}
	if _, err := k.br.Peek(1); err != nil {
		return 0, nil, false, err // nothing came: a closed kept-alive connection
	}
	resp, err := http.ReadResponse(k.br, nil)
	if err != nil {
		return 0, nil, true, err
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxAdminAnswer+1))
	resp.Body.Close()
	switch {
	case err != nil:
		return 0, nil, true, err
	case len(data) > maxAdminAnswer:
		return 0, nil, true, fmt.Errorf("answer longer than %d bytes", maxAdminAnswer)
	case resp.Close:
		k.conn.Close() // nginx closes it after this answer; the next request dials
		k.conn = nil
	default:
		// Idle between requests: no deadline, so no timer stays armed.
		k.conn.SetDeadline(time.Time{})
	}
	return resp.StatusCode, data, true, nil
}

// statusText is an answer's status as net/http's Response.Status gives it.
func statusText(code int) string {
	return strconv.Itoa(code) + " " + http.StatusText(code)
}
