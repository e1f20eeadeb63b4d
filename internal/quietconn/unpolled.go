package quietconn

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Unpolled is a connected unix socket that the runtime's poller does not watch: an
// answer that arrives on it wakes no thread of the process. A net.Conn's socket is in the
// poller's epoll set from the start, and data arriving on it wakes the thread that sleeps
// in epoll_wait whether or not a goroutine waits for it. Unpolled is for a request whose
// answer the caller means to read later, when the process is awake for something else:
// Read takes what is there with a raw system call, and only waits, in a blocking poll
// system call, when nothing is. One goroutine at a time uses it.
type Unpolled struct {
	mu       sync.Mutex // guards fd against Interrupt after Close
	fd       int        // -1 once closed
	deadline time.Time
}

// DialUnix connects to the unix socket at path, waiting until ctx ends at most.
func DialUnix(ctx context.Context, path string) (*Unpolled, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	u := &Unpolled{fd: fd}
	if d, ok := ctx.Deadline(); ok {
		u.deadline = d
	}
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINPROGRESS) {
		// The listener's backlog is full: wait until it takes the connection.
		stop := context.AfterFunc(ctx, u.Interrupt)
		err = u.wait(unix.POLLOUT)
		stop()
		if err == nil {
			var soerr int
			if soerr, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err == nil && soerr != 0 {
				err = syscall.Errno(soerr)
			}
		}
	}
	if err != nil {
		u.Close()
		return nil, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	u.deadline = time.Time{}
	return u, nil
}

// SetDeadline bounds the waits of the reads and writes that follow; zero means none.
// Unlike a net.Conn's, it does not reach a wait in progress: Interrupt does.
func (u *Unpolled) SetDeadline(t time.Time) error {
	u.deadline = t
	return nil
}

// Write writes all of p, waiting for room in the socket's buffer when it is full.
func (u *Unpolled) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(u.fd), uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n),
			unix.MSG_NOSIGNAL, 0, 0)
		switch e {
		case 0:
			n += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := u.wait(unix.POLLOUT); err != nil {
				return n, err
			}
		default:
			return n, os.NewSyscallError("write", e)
		}
	}
	return n, nil
}

// Read reads what the socket holds, and waits for something only when it holds nothing.
func (u *Unpolled) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(u.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case 0:
			if r == 0 {
				return 0, io.EOF
			}
			return int(r), nil
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := u.wait(unix.POLLIN); err != nil {
				return 0, err
			}
		default:
			return 0, os.NewSyscallError("read", e)
		}
	}
}

// wait blocks in poll until the socket is ready for events, or fails past the deadline.
// A blocking system call, as the runtime's accounting sees it: the runtime hands this
// thread's P to another while it waits, which costs more than the poller's wait, and is
// why only a read that finds nothing, or a write that finds no room, comes here.
func (u *Unpolled) wait(events int16) error {
	for {
		ms := -1
		if !u.deadline.IsZero() {
			left := time.Until(u.deadline)
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			ms = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(u.fd), Events: events}}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR) || (err == nil && n == 0):
			continue // interrupted, or timed out: the deadline says which
		case err != nil:
			return os.NewSyscallError("poll", err)
		}
		return nil // ready, or hung up or failed: the read or write that follows says which
	}
}

// Interrupt makes a wait in progress, and every one after it, return: the socket is shut
// down for reading and writing. It is safe to call from another goroutine, and after Close.
func (u *Unpolled) Interrupt() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fd >= 0 {
		unix.Shutdown(u.fd, unix.SHUT_RDWR)
	}
}

// Close closes the socket.
func (u *Unpolled) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.fd < 0 {
		return nil
	}
	err := unix.Close(u.fd)
	u.fd = -1
	return err
}
