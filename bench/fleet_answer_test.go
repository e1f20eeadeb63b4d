package bench

// fleetAnswerWork is what the work of 2026-11-27 morning changed, and how it was
// measured, for the report.
const fleetAnswerWork = "What the work of 2026-11-27 morning changed: of those two wake-ups inside the window, the second (nginx's answer to the push) is gone. " +
	"An agent's applier (`Applier.AnswerLater`, which only agents set, to their report delay of 50 ms) sends a push of backends alone on an admin connection that " +
	"the Go runtime's poller does not watch (`quietconn.Unpolled`, a nonblocking unix socket outside epoll), so that nginx's answer wakes no thread of the agent when " +
	"it comes; the applier reads it 50 ms after the push, or at once when a newer revision comes, and the report of the apply goes out in that same wake-up (a " +
	"report now waits 50 ms from its apply's start, not its end). Traffic moves when nginx stores the push; only what the agent says it runs, and its report, wait " +
	"for the answer to be read, as they waited for the report delay before. The apply record still ends when nginx stored the push: the admin endpoint's answer " +
	"says when (`appliedAt`, to the microsecond through LuaJIT's FFI), so apply durations, the hops above and the propagation histogram keep their meaning; " +
	"serve reads answers as they come. `strace` of one agent during the measured changes: per change its thread went to sleep four times before (after the push; " +
	"after nginx's answer; after the report, 50 ms later; after the report's answer and the journal line) and three times after, once inside the window; the " +
	"report's 50 ms timer costs a second, short sleep in both, because the runtime's epoll wait counts whole milliseconds and wakes 1 ms early. The benchmark now " +
	"counts context switches and CPU to the nanosecond inside each change's window (above). Five quick runs each (`RESTYPLANE_FLEET_QUICK=1`), main (27d9490) " +
	"and this change taken in turn, at load averages of 3 to 26 on a machine shared with five other engineers' builds and tests (the last two pairs with 100 ms of " +
	"rest after each change of either system): voluntary context switches per agent per change, over whole changes, 7.60, 7.86, 8.21, 8.25, 8.12 before and " +
	"6.64, 7.04, 6.88, 7.27, 7.15 after (means 8.01 and 7.00); inside the window 2.09, 4.15, 4.85, 2.99, 3.28 before and 2.35, 3.33, 2.41, 2.30, 3.09 after " +
	"(a window longer than 50 ms also holds the report wake-ups of the agents that applied first); agents' CPU inside the window per change 10.8, 18.3, 20.1, " +
	"14.6, 15.3 ms before and 10.9, 15.2, 12.0, 10.9, 14.8 ms after (means 15.8 and 12.8 ms); agents' CPU over whole changes 27.2 to 30.4 ms before, 24.7 to " +
	"28.7 ms after. restyplane ÷ bare in the same runs, p50: 1.46, 1.68, 1.77, 1.60, 1.38 before (median 1.60), 1.30, 1.41, 1.53, 1.50, 1.28 after (median " +
	"1.41); p99: 1.36, 2.08, 1.19, 2.13, 2.12 before, 2.15, 1.12, 2.22, 1.65, 1.15 after: on this busy machine the other work moves single runs more than " +
	"the code does. The benchmark itself now rests 100 ms after the fleet view's wait, as it did after each bare change: the agents write their journal lines " +
	"after the report's answer that the fleet view waits for, and those writes (each wakes the runtime's monitor thread) fell into the next change's window.\n\n" +
	"What is left inside the window: one wake-up per agent per change (the feed's line, its decoding, the plan and the push; about 220 µs of an agent's CPU on " +
	"this machine; in `perf record` of the agents over whole changes the kernel took two fifths of their CPU, and the runtime's scheduler and monitor thread (their system calls included) a " +
	"quarter, JSON a fifth), and the control plane's write and fan-out (4 to 6 ms of CPU per change). The nginx and benchmark figures inside the window grow with the window itself: 50 pollers poll " +
	"every 5 ms until they see the change. Left as they are: the journal line's file write after the report's answer wakes the runtime's monitor thread " +
	"(about two of the switches per change, outside the window), and the control plane's SQLite rows per report (an apply record and the instance's row, " +
	"outside the window)."
