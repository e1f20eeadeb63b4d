package quietconn

import (
	"errors"
	"io"
	"net"
)

// Listener is a net.Listener whose accepted connections are wrapped (Wrap). It is for the
// control plane's API: at every change it writes a feed line to every agent, one socket
// after another, and with the runtime's system call entry each of those writes could
// have its P taken away by the monitor thread and handed to another thread, a wake-up
// and a context switch more per line on cores the agents and their nginx need.
type Listener struct {
	net.Listener
}

// Accept waits for the next connection and returns it wrapped.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}

// CloseWrite shuts down the writing side of the wrapped connection when it has one (a
// TCP or unix socket), as net/http's server does before closing a connection whose
// request it did not read whole.
func (c *Conn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}

// ReadFrom copies r to the connection with the wrapped connection's own ReadFrom (which
// may send a file with sendfile or splice), or with plain writes when it has none.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c}, r)
}

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }
