package nginx_test

import (
	"fmt"
	"sync"
	"time"
)

// loadClient is what one client of a wireLoad asks for.
type loadClient struct {
	path  string
	pause time.Duration // the longest wait between requests: 0, 1/3, 2/3 and all of it in turn
	extra string        // more header lines, each ending in CRLF
}

// wireLoad is clients that send requests through a proxy, each on its own connection,
// until the test ends them, and tally every answer: the tests that change a running nginx
// under traffic count each request that failed, with the client and request that lost it.
type wireLoad struct {
	stop           chan struct{}
	wg             sync.WaitGroup
	mu             sync.Mutex
	errs           []string
	served, closes int // answers of 200, and those of them that asked to close
}

// maxLoadRequests bounds each client of a wireLoad.
const maxLoadRequests = 100000

// startLoad starts one goroutine per client, sending to addr with the Host host.
func startLoad(addr, host string, clients []loadClient) *wireLoad {
	l := &wireLoad{stop: make(chan struct{})}
	for k, c := range clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			w := newWireClient(addr, host)
			w.extra = c.extra
			defer w.close()
			for i := 0; i < maxLoadRequests; i++ {
				select {
				case <-l.stop:
					return
				case <-time.After(c.pause * time.Duration(i%4) / 3):
				}
				a, err := w.get(c.path)
				l.mu.Lock()
				switch {
				case err != nil:
					l.errs = append(l.errs, fmt.Sprintf("client %d (%s, pause %s), request %d: %v", k, c.path, c.pause, i+1, err))
				case a.status != 200:
					l.errs = append(l.errs, fmt.Sprintf("client %d (%s), request %d: status %d", k, c.path, i+1, a.status))
				default:
					l.served++
					if a.closed {
						l.closes++
					}
				}
				l.mu.Unlock()
			}
		}()
	}
	return l
}

// end stops the clients, waits for them and returns the tally.
func (l *wireLoad) end() (served, closes int, errs []string) {
	close(l.stop)
	l.wg.Wait()
	return l.served, l.closes, l.errs
}
