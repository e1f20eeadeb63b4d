package main

import (
	"os"
	"runtime"
)

// leaveCoresToNginx runs Go code on one core at a time unless the GOMAXPROCS variable
// says otherwise. It is for restyplane beside an nginx on the same machine: an agent, or
// serve with its local nginx. nginx's workers take one core each and carry the traffic;
// restyplane's work (a feed to follow, an API write, a commit and a push) needs one. With
// a P per core, the Go runtime hands a request's goroutines between threads that must
// each wait for a core the workers hold: on 2 cores under load, serve's API write took
// 0.5 to 0.9 ms longer to reach nginx than with one (BENCHMARKS.md, side by side), and
// 50 agents, each taking every core for its scheduler and garbage collector, cost the
// proxies CPU.
func leaveCoresToNginx() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
