// Package quietconn wraps a socket so that its reads and writes do not wake the Go
// runtime's monitor thread.
//
// Every read and write of a net.Conn is a system call that the runtime enters through
// entersyscall, and the first one after the process was idle wakes its monitor thread
// (sysmon), which then sleeps 20 µs at a time for as long as the burst of work lasts. A
// process that wakes for a few hundred microseconds at a time, as an agent does for each
// change, pays for those wake-ups and their context switches as much as for its own work
// (a quarter of an agent's CPU in a profile of 50 agents on two cores), and more on a
// busy machine, where the burst lasts longer. A read or write of a nonblocking socket
// never blocks, so it can be made as a raw system call, which the runtime does not
// account for; waiting for the socket still goes through the runtime's poller, deadlines
// included. Unpolled goes further, for an answer to be read later: a unix socket that the
// poller does not watch, so that the answer wakes nothing when it comes.
package quietconn

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Conn is a net.Conn whose reads and writes are raw system calls on its nonblocking
// socket. Everything else (deadlines, Close, addresses) is the wrapped conn's.
type Conn struct {
	net.Conn
	rc syscall.RawConn
}

// Wrap returns c with quiet reads and writes, or c itself when it exposes no socket.
func Wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &Conn{Conn: c, rc: rc}
}

// Read implements net.Conn: it waits for the socket through the poller, as the wrapped
// conn does, and honours its read deadline.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write implements net.Conn: it writes all of p, waiting through the poller whenever the
// socket's buffer is full, and honours the write deadline.
func (c *Conn) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// opError wraps err as net.Conn's own methods do, so that callers that look for a
// timeout (net.Error) or os.ErrDeadlineExceeded still find it.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
