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
//
// With unpolled, the socket is one the runtime's poller does not watch (quietconn.Unpolled),
// for requests whose answer is read later (start, then end): nginx's answer then wakes
// nothing.
type keptConn struct {
	socket   string
	unpolled bool
	mu       sync.Mutex
	conn     adminConn
	br       *bufio.Reader
}

// adminConn is a kept connection's socket: a net.Conn, or a quietconn.Unpolled.
type adminConn interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
}

// roundTrip sends one request and returns the answer's status and body. A request that
// failed on a kept-alive connection before any answer came is sent once more on a new
// one: nginx closes idle connections (keepalive_timeout, or a worker that a reload
// retired), and pushes and counter reads may be sent twice.
func (k *keptConn) roundTrip(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	x, err := k.start(ctx, method, path, body)
	if err != nil {
		return 0, nil, err
	}
	return x.end(ctx)
}

// exchange is a request that start sent and whose answer end reads; k is locked between.
type exchange struct {
	k            *keptConn
	method, path string
	body         []byte
	reused       bool // it went on a connection that served requests before
	retried      bool // it is the second sending
}

// start locks k and sends the request, once more on a new connection if the held one was
// closed. The caller must call end, which unlocks k.
func (k *keptConn) start(ctx context.Context, method, path string, body []byte) (*exchange, error) {
	k.mu.Lock()
	x := &exchange{k: k, method: method, path: path, body: body}
	if err := x.send(ctx); err != nil {
		k.mu.Unlock()
		return nil, err
	}
	return x, nil
}

// send writes the request, on the held connection or a new one.
func (x *exchange) send(ctx context.Context) error {
	k := x.k
	for {
		x.reused = k.conn != nil
		if !x.reused {
			if err := k.dial(ctx); err != nil {
				return err
			}
		}
		err := x.write(ctx)
		if err == nil {
			return nil
		}
		k.drop()
		if !x.reused || x.retried || ctx.Err() != nil {
			return err
		}
		x.retried = true
	}
}

// end reads the answer to the request start sent, and unlocks k. An answer that did not
// come at all on a reused connection (closed by nginx as the request went) is asked for
// once more on a new one.
func (x *exchange) end(ctx context.Context) (int, []byte, error) {
	k := x.k
	defer k.mu.Unlock()
	for {
		status, data, answered, err := x.read(ctx)
		if err == nil {
			return status, data, nil
		}
		k.drop()
		if !x.reused || answered || x.retried || ctx.Err() != nil {
			return 0, nil, err
		}
		x.retried = true
		if err := x.send(ctx); err != nil {
			return 0, nil, err
		}
	}
}

// dial connects a new socket.
func (k *keptConn) dial(ctx context.Context) error {
	if k.unpolled {
		c, err := quietconn.DialUnix(ctx, k.socket)
		if err != nil {
			return err
		}
		k.conn = c
	} else {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", k.socket)
		if err != nil {
			return err
		}
		k.conn = quietconn.Wrap(c)
	}
	k.br = bufio.NewReader(k.conn)
	return nil
}

// drop closes the held connection.
func (k *keptConn) drop() {
	if k.conn != nil {
		k.conn.Close()
		k.conn = nil
	}
}

// interruptOn makes the connection's reads and writes fail once ctx ends; the returned
// function stops that.
func (k *keptConn) interruptOn(ctx context.Context) func() bool {
	c := k.conn
	return context.AfterFunc(ctx, func() {
		if u, ok := c.(*quietconn.Unpolled); ok {
			u.Interrupt()
		} else {
			c.SetDeadline(time.Unix(1, 0))
		}
	})
}

// write sends the request on the held connection.
func (x *exchange) write(ctx context.Context) error {
	k := x.k
	deadline := time.Now().Add(adminTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := k.conn.SetDeadline(deadline); err != nil {
		return err
	}
	stop := k.interruptOn(ctx)
	defer stop()
	// Appended piece by piece: fmt's formatting, run once per change in a process that
	// wakes for little else, cost more than the rest of the request's making.
	req := make([]byte, 0, 160+len(x.body))
	req = append(append(append(append(req, x.method...), ' '), x.path...), " HTTP/1.1\r\nHost: admin\r\n"...)
	if x.body != nil {
		req = append(req, "Content-Type: application/json\r\nContent-Length: "...)
		req = append(strconv.AppendInt(req, int64(len(x.body)), 10), "\r\n"...)
	}
	req = append(append(req, "\r\n"...), x.body...)
	_, err := k.conn.Write(req)
	return err
}

// read reads the answer on the held connection; answered says whether any of it came,
// after which the request is never sent again.
func (x *exchange) read(ctx context.Context) (status int, data []byte, answered bool, err error) {
	k := x.k
	stop := k.interruptOn(ctx)
	defer stop()
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
		k.drop() // nginx closes it after this answer; the next request dials
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
