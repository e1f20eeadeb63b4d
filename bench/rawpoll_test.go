package bench

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// rawPoller sends GET requests through a proxy on one kept-alive TCP connection, writing
// a request prepared once and reading the answer with a small parser: 50 of them polling
// every few milliseconds through net/http clients took a good part of the CPU the
// benchmark measures (request and header maps, goroutines per connection). It speaks only
// what the proxies answer here: HTTP/1.1 with Content-Length or chunked bodies.
type rawPoller struct {
	addr    string // host:port
	request []byte
	conn    net.Conn
	r       *bufio.Reader
}

// newRawPoller polls http://host:port (proxyURL) for path with the Host header host.
func newRawPoller(proxyURL, host, path string) *rawPoller {
	return &rawPoller{addr: strings.TrimPrefix(proxyURL, "http://"),
		request: []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: restyplane-bench\r\n\r\n")}
}

// get sends one request and returns the status and the X-Upstream header. Any failure
// closes the connection; the next call dials a new one.
func (p *rawPoller) get() (code int, upstream string, err error) {
	if p.conn == nil {
		c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
		if err != nil {
			return 0, "", err
		}
		p.conn, p.r = c, bufio.NewReaderSize(c, 4096)
	}
	code, upstream, keep, err := p.roundTrip()
	if err != nil || !keep {
		p.close()
	}
	return code, upstream, err
}

func (p *rawPoller) roundTrip() (code int, upstream string, keep bool, err error) {
	_ = p.conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.conn.Write(p.request); err != nil {
		return 0, "", false, err
	}
	line, err := p.r.ReadSlice('\n')
	if err != nil {
		return 0, "", false, err
	}
	f := strings.Fields(string(line))
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return 0, "", false, fmt.Errorf("status line %q", line)
	}
	if code, err = strconv.Atoi(f[1]); err != nil {
		return 0, "", false, fmt.Errorf("status line %q", line)
	}
	length, chunked, keep := -1, false, true
	for {
		line, err := p.r.ReadSlice('\n')
		if err != nil {
			return 0, "", false, err
		}
		h := strings.TrimRight(string(line), "\r\n")
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "x-upstream":
			upstream = v
		case "content-length":
			length, _ = strconv.Atoi(v)
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		case "connection":
			keep = !strings.EqualFold(v, "close")
		}
	}
	switch {
	case chunked:
		err = p.skipChunks()
	case length >= 0:
		_, err = p.r.Discard(length)
	default:
		keep = false // a body up to the close: not worth reading
	}
	return code, upstream, keep && err == nil, err
}

// skipChunks reads a chunked body to its end.
func (p *rawPoller) skipChunks() error {
	for {
		line, err := p.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		sz, _, _ := strings.Cut(strings.TrimSpace(string(line)), ";")
		n, err := strconv.ParseInt(sz, 16, 64)
		if err != nil {
			return fmt.Errorf("chunk size %q", line)
		}
		if n == 0 {
			for { // trailers up to the empty line
				line, err := p.r.ReadSlice('\n')
				if err != nil {
					return err
				}
				if strings.TrimSpace(string(line)) == "" {
					return nil
				}
			}
		}
		if _, err := p.r.Discard(int(n) + 2); err != nil {
			return err
		}
	}
}

func (p *rawPoller) close() {
	if p.conn != nil {
		p.conn.Close()
		p.conn, p.r = nil, nil
	}
}
