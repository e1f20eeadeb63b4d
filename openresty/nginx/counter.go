package nginx

// Counter is a server's or a backend's cumulative request counts.
type Counter struct {
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// Clients is, for a backend, the distinct client addresses among its failing requests
	// in the epoch asked for.
	Clients int64 `json:"clients,omitempty"`
}
