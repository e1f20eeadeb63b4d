// Package metrics is the data plane's Prometheus side: the applier's collectors, nginx's
// connection gauge, and an agent's own listener (/healthz, /readyz, /metrics). It stands
// apart from the HTTP API (package server) so that an agent, which drives an OpenResty and
// runs no API, links none of it.
package metrics
