package nginx

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// StubStatus is nginx's connection and request counters, as the stub_status module (or,
// without it, the admin endpoint's stand-in, which knows only requests) reports them.
type StubStatus struct {
	Active, Accepted, Handled, Requests int64
	Reading, Writing, Waiting           int64
}

// StubStatus reads /stub_status from the admin endpoint.
func (c *AdminClient) StubStatus(ctx context.Context) (StubStatus, error) {
	var s StubStatus
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://admin/stub_status", nil)
	if err != nil {
		return s, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return s, fmt.Errorf("admin GET /stub_status: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil || resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("admin GET /stub_status: %s %v", resp.Status, err)
	}
	return parseStubStatus(string(body))
}

// parseStubStatus reads the module's four-line format:
//
//	Active connections: 1
//	server accepts handled requests
//	 8 8 8
//	Reading: 0 Writing: 1 Waiting: 0
func parseStubStatus(text string) (StubStatus, error) {
	var s StubStatus
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 4 {
		return s, fmt.Errorf("stub_status: want 4 lines, got %q", text)
	}
	if _, err := fmt.Sscanf(lines[0], "Active connections: %d", &s.Active); err != nil {
		return s, fmt.Errorf("stub_status: %q: %w", lines[0], err)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(lines[2]), "%d %d %d", &s.Accepted, &s.Handled, &s.Requests); err != nil {
		return s, fmt.Errorf("stub_status: %q: %w", lines[2], err)
	}
	if _, err := fmt.Sscanf(lines[3], "Reading: %d Writing: %d Waiting: %d", &s.Reading, &s.Writing, &s.Waiting); err != nil {
		return s, fmt.Errorf("stub_status: %q: %w", lines[3], err)
	}
	return s, nil
}
