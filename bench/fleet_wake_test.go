package bench

// fleetWakeWork is what the work of 2026-11-27 found and changed, for the report.
const fleetWakeWork = "What the work of 2026-11-27 found and changed. Traced first, with a build that stamped every hop of a change (the API request, the commit, " +
	"each feed line written, each agent's line read, its push sent and answered, its report, and each proxy's first answer from the new upstream) and with " +
	"`perf record -a` on the stamps' clock, so that every CPU sample of the machine could be put inside or outside a change's window (the write to the last " +
	"proxy's first new answer). Inside the windows the two cores were never idle, for restyplane's changes as for the bare mechanism's (0.1 ms of idle " +
	"per window): propagation here is the CPU spent inside the window divided by two cores. Per window, main's code: nginx 26.6 ms, agents 22.3 ms, " +
	"the benchmark 9.1 ms, control plane 3.8 ms; bare: nginx 20.7 ms, the benchmark 9.4 ms (and in both, other engineers' builds). What restyplane adds " +
	"is its agents' CPU inside the window: two wake-ups of each of 50 agents (the feed line; nginx's answer to the push), about 450 µs of CPU per agent, " +
	"a quarter of it the Go runtime's monitor thread (sysmon) and another the scheduler's and the kernel's context switches, which each burst pays again; " +
	"the report 50 ms later and its answer fall outside the window at the median. The hops, p50 of 100 changes, median instance and last instance, " +
	"ms from the write, median of three runs of each taken in turn (load average 11 to 16): the commit 0.6 and 0.6 both; the feed line written 4.5 " +
	"and 10.4 before, 3.7 and 7.8 after; read by the agent 6.7 and 14.4, then 5.6 and 13.3; nginx answered the push 16.8 and 31.5, then 13.5 and 26.4; " +
	"the proxy answered from the new upstream 24.1 and 37.0, then 21.1 and 31.8 (bare, the same runs: pushes answered 8.5 and 15.6, then 7.3 and 15.5; " +
	"the proxies 14.0 and 22.3, then 13.1 and 21.4).\n\n" +
	"The changes. (1) The agent's sockets (its feed and reports, and nginx's admin socket) read and write with raw system calls (`internal/quietconn`): " +
	"a read or write of a nonblocking socket never blocks, and the runtime's usual entry into a system call woke sysmon at the first one of every burst, " +
	"which then slept 20 µs at a time, each a context switch, for as long as the burst lasted, longer on a busy machine; waiting for the socket still " +
	"goes through the runtime's poller, deadlines included. (2) Pushes and counter reads go on one kept-alive admin connection that the applier writes " +
	"and reads itself, instead of net/http's transport and its two goroutines per connection. (3) The counters a push answers stay encoded until the " +
	"report reads them. (4) A journal line, like a whole state, is written after the report of its apply went out, not in the wake-up of nginx's " +
	"answer: the file write was the one system call left that woke sysmon inside the window. The push's answer already carried the counters (one admin " +
	"round trip fewer) before this work. Effect, in the same alternating runs: agents' CPU per change 40.6, 37.1, 40.6 ms before and 30.7, 27.8, " +
	"28.0 ms after; inside the window 22.3 ms before and 14.8 ms after (control plane 3.8 and 3.0 ms); restyplane ÷ bare at p50 1.63, 1.80, 1.71 " +
	"before and 1.48, 1.36, 1.29 after. The p99 ratios of those runs (1.51, 1.83, 1.60 before; 2.04, 0.95, 1.31 after) are the second-slowest of 100 " +
	"changes on a machine shared with other builds, and moved by them more than by the code. Full runs of this branch that evening, each writing " +
	"this section (load averages 3 to 15 at their start): restyplane ÷ bare at p50 1.41, 1.55, 1.37, 1.25, 1.45 and at p99 1.87, 1.68, 1.26, 1.42, " +
	"1.32; before it, this section's run of 2026-11-24 gave 1.72 and 1.64.\n\n" +
	"What is left, and why the goal of 1.2 is still missed: the two wake-ups per agent per change are the floor of this design, since the applier " +
	"reads nginx's answer before it records the apply and calls the revision running, and each costs an agent about 150 µs of CPU inside the window " +
	"on this virtual machine, most of it the kernel's and the runtime's (the JSON of the feed line and the push about a fifth). Tried and not taken: " +
	"`SCHED_BATCH` for the agents' threads, so that a woken agent never preempts the control plane's fan-out or nginx (p50 ratio 1.56 and 1.66 " +
	"against 1.30 and 1.49 without, in turn); a report delay of 200 ms instead of 50 (no difference beyond the noise in two pairs of runs); " +
	"`GOMAXPROCS=1` for the control plane (the feed's fan-out took as long). `GOGC=400` for every process cut the agents' CPU per change by a tenth " +
	"(24.9 against 27.3 ms in turn), an operator's trade of memory for CPU that the agent leaves to them. The control plane's SQLite rows per report (an apply record and the " +
	"instance's row, for 50 reports in one transaction) are outside the window at the median; they were left as they are."
