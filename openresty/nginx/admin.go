package nginx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// AdminClient talks to the Lua admin endpoint of one instance over its unix socket.
type AdminClient struct {
	http *http.Client
	// kept sends pushes and counter reads on a kept-alive connection (see keptConn);
	// later sends the pushes whose answers are read later (SendBackends).
	kept, later *keptConn
	resolver    hostResolver
}

// NewAdminClient returns a client for the admin socket at path.
func NewAdminClient(socket string) *AdminClient {
	var d net.Dialer
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "unix", socket) }
	// DisableCompression: net/http asks for gzip by default, and nginx's http-level gzip
	// answered every admin read compressed; on a local socket that cost nginx a deflate
	// and the agent a gunzip (with its 32 KiB window) per counter read, for nothing.
	return &AdminClient{
		kept:  &keptConn{socket: socket},
		later: &keptConn{socket: socket, unpolled: true},
		http: &http.Client{
			Timeout: adminTimeout,
			Transport: &http.Transport{
				DialContext: dial,
				// Each call gets a fresh connection: a kept-alive one could reach a worker
				// of the previous generation while a reload is being confirmed.
				DisableKeepAlives:  true,
				DisableCompression: true,
			},
		},
		resolver: net.DefaultResolver,
	}
}

// AdminStatus is what the worker that answered reports about itself.
type AdminStatus struct {
	// Generation is the generation of the conf the worker runs.
	Generation string `json:"generation"`
	PID        int    `json:"pid"`
	MasterPID  int    `json:"masterPid"`
	// Version is the version of the last push; 0 after a start, when shared memory is empty.
	Version      int64 `json:"version"`
	Backends     int   `json:"backends"`
	Certificates int   `json:"certificates"`
	// Draining says whether a reload's drain flag is up: answers ask clients to close
	// their kept-alive connections (see Instance.Reload).
	Draining bool `json:"draining"`
}

// CertificateInfo describes a pushed certificate; the admin endpoint never returns keys.
type CertificateInfo struct {
	Name    string `json:"name"`
	Version int64  `json:"version"`
}

// Status returns the answering worker's generation, pid and dynamic version.
func (c *AdminClient) Status(ctx context.Context) (AdminStatus, error) {
	var st AdminStatus
	err := c.do(ctx, http.MethodGet, "/status", nil, &st)
	return st, err
}

// Health returns nil when a worker answers.
func (c *AdminClient) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/health", nil, nil)
}

// Backends returns every pushed backend, each with the version it was pushed with.
func (c *AdminClient) Backends(ctx context.Context) ([]api.Backend, error) {
	var out []api.Backend
	err := c.do(ctx, http.MethodGet, "/backends", nil, &out)
	return out, err
}

// Backend returns one pushed backend, or an api.Error with code not_found.
func (c *AdminClient) Backend(ctx context.Context, name string) (api.Backend, error) {
	var b api.Backend
	if err := api.ValidName("name", name); err != nil {
		return b, err
	}
	err := c.do(ctx, http.MethodGet, "/backends/"+name, nil, &b)
	return b, err
}

// Certificates lists the pushed certificates.
func (c *AdminClient) Certificates(ctx context.Context) ([]CertificateInfo, error) {
	var out []CertificateInfo
	err := c.do(ctx, http.MethodGet, "/certificates", nil, &out)
	return out, err
}

// Counters returns the cumulative request and 5xx counts per server since nginx started.
func (c *AdminClient) Counters(ctx context.Context) (map[string]Counter, error) {
	out := map[string]Counter{}
	err := c.do(ctx, http.MethodGet, "/counters", nil, &out)
	return out, err
}

// BackendCounters returns per backend the requests that reached an upstream and those the
// upstream answered with a 5xx, cumulative since nginx started, and the distinct client
// addresses among the failing ones in epoch; it makes epoch the one counted from now on.
func (c *AdminClient) BackendCounters(ctx context.Context, epoch int64) (map[string]Counter, error) {
	out := map[string]Counter{}
	err := c.do(ctx, http.MethodGet, "/backend-counters?epoch="+strconv.FormatInt(epoch, 10), nil, &out)
	return out, err
}

// do sends one request; a 404 becomes api not_found, any other failure an error that
// carries the endpoint's message.
func (c *AdminClient) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("admin %s %s: %w", method, path, err)
		}
	}
	var status int
	var data []byte
	var err error
	if isPush(method, path) || isCounterRead(method, path) {
		// A push stores the same version and bodies however often it arrives, and
		// counters live in shared memory, the same for every worker of every generation:
		// both go on the kept-alive connection, which may send them twice.
		status, data, err = c.kept.roundTrip(ctx, method, path, body)
	} else {
		status, data, err = c.fresh(ctx, method, path, body)
	}
	return decodeAnswer(method, path, status, data, err, out)
}

// decodeAnswer decodes an admin answer into out (when not nil): a 404 becomes api
// not_found, any other failure an error that carries the endpoint's message.
func decodeAnswer(method, path string, status int, data []byte, err error, out any) error {
	if err != nil {
		return fmt.Errorf("admin %s %s: %w", method, path, err)
	}
	if status != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = string(bytes.TrimSpace(data))
		}
		if status == http.StatusNotFound {
			return api.Errorf(api.ENotFound, "%s", e.Error)
		}
		return fmt.Errorf("admin %s %s: %s: %s", method, path, statusText(status), e.Error)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("admin %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// fresh sends one request on a connection of its own: a kept-alive one could reach a
// worker of the previous generation while a reload is being confirmed.
func (c *AdminClient) fresh(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://admin"+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAdminAnswer))
	return resp.StatusCode, data, err
}

// isCounterRead reports whether a request reads the request counters (a GET, which may be
// sent again on a new connection when a kept-alive one was closed).
func isCounterRead(method, path string) bool {
	return method == http.MethodGet && (path == "/counters" || strings.HasPrefix(path, "/backend-counters?"))
}

// isPush reports whether a request is a push of backends, certificates or policies.
func isPush(method, path string) bool {
	return method == http.MethodPost && (path == "/backends" || path == "/certificates" || path == "/policies")
}
