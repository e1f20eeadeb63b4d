// Package bench holds the end-to-end benchmarks of the OpenResty data plane and its applier.
// They build and start the real restyplane binary with a managed nginx, drive it
// only through the REST API, and send real HTTP through the proxy to real upstream servers
// on loopback, as a user's traffic would go.
//
// Each benchmark is one whole scenario: run it with -benchtime 1x. With RESTYPLANE_BENCH_OUT
// set (make bench sets it to BENCHMARKS.md) each writes its own section of that file.
package bench
