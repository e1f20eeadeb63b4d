package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fleetProcs are the fleet's processes: the control plane, the agents, and their nginx
// (masters and workers).
type fleetProcs struct {
	cp            int
	agents, nginx []int
	// spent is the benchmark's CPU spent reading samples, which fleet.cpu leaves out of
	// the benchmark's figure.
	spent *time.Duration
}

// procs lists the fleet's processes as they run now.
func (f *fleet) procs() fleetProcs {
	p := fleetProcs{cp: f.cp.PID(), nginx: f.nginxPIDs(), spent: &f.sampling}
	for _, a := range f.agents {
		p.agents = append(p.agents, a.PID())
	}
	return p
}

// fleetSample is what the fleet's processes used so far, all their threads summed
// (/proc/<pid>/task/<tid>/): CPU time to the nanosecond (schedstat), and context switches.
// Voluntary ones are a thread going to sleep, so an agent's per change count how often it
// woke and slept again: unlike propagation, and much less than CPU time, a figure that
// does not move with other work on the machine. Involuntary ones are preemptions, and do.
type fleetSample struct {
	cpVol, agentsVol, nginxVol, agentsInvol int64
	cp, agents, nginx, bench                time.Duration
}

// sub is what was used between o and s.
func (s fleetSample) sub(o fleetSample) fleetSample {
	return fleetSample{cpVol: s.cpVol - o.cpVol, agentsVol: s.agentsVol - o.agentsVol, nginxVol: s.nginxVol - o.nginxVol,
		agentsInvol: s.agentsInvol - o.agentsInvol, cp: s.cp - o.cp, agents: s.agents - o.agents, nginx: s.nginx - o.nginx, bench: s.bench - o.bench}
}

// add is s and o together.
func (s fleetSample) add(o fleetSample) fleetSample {
	return fleetSample{cpVol: s.cpVol + o.cpVol, agentsVol: s.agentsVol + o.agentsVol, nginxVol: s.nginxVol + o.nginxVol,
		agentsInvol: s.agentsInvol + o.agentsInvol, cp: s.cp + o.cp, agents: s.agents + o.agents, nginx: s.nginx + o.nginx, bench: s.bench + o.bench}
}

// switches says the voluntary switches per agent per change, over changes changes of
// agents agents.
func (s fleetSample) switches(changes, agents int) string {
	n := float64(changes * agents)
	return fmt.Sprintf("voluntary context switches per agent per change: the agent %.2f (involuntary %.2f), its nginx %.2f; the control plane %.1f per change",
		float64(s.agentsVol)/n, float64(s.agentsInvol)/n, float64(s.nginxVol)/n, float64(s.cpVol)/float64(changes))
}

// cpu says the CPU per change, over changes changes.
func (s fleetSample) cpu(changes int) string {
	d := time.Duration(changes)
	return fmt.Sprintf("agents %s, nginx %s, control plane %s, benchmark %s", fmtDur(s.agents/d), fmtDur(s.nginx/d), fmtDur(s.cp/d), fmtDur(s.bench/d))
}

// sample reads what the processes used so far. The benchmark's own CPU is read first
// when the sample ends a window, last when it starts one, so that reading /proc for
// the sample counts in neither.
func (p fleetProcs) sample(ending bool) fleetSample {
	var s fleetSample
	start := selfCPU()
	defer func() { *p.spent += selfCPU() - start }()
	if ending {
		s.bench = start
	}
	s.cpVol, _, s.cp = procTasks(p.cp)
	for _, pid := range p.agents {
		v, iv, d := procTasks(pid)
		s.agentsVol, s.agentsInvol, s.agents = s.agentsVol+v, s.agentsInvol+iv, s.agents+d
	}
	for _, pid := range p.nginx {
		v, _, d := procTasks(pid)
		s.nginxVol, s.nginx = s.nginxVol+v, s.nginx+d
	}
	if !ending {
		s.bench = selfCPU()
	}
	return s
}

// selfCPU is the benchmark's own CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nginxPIDs are the agents' nginx masters (by their pid files) and their children.
func (f *fleet) nginxPIDs() []int {
	masters := map[int]bool{}
	for _, a := range f.agents {
		if b, err := os.ReadFile(filepath.Join(a.DataDir, "openresty", "logs", "nginx.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				masters[pid] = true
			}
		}
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if masters[pid] || masters[procPPID(pid)] {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procTasks sums a process's threads' voluntary and involuntary context switches and CPU
// time; a thread that ended takes its counts with it.
func procTasks(pid int) (vol, invol int64, cpu time.Duration) {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		dir := fmt.Sprintf("/proc/%d/task/%s/", pid, t.Name())
		if b, err := os.ReadFile(dir + "schedstat"); err == nil {
			if f := bytes.Fields(b); len(f) > 0 {
				ns, _ := strconv.ParseInt(string(f[0]), 10, 64)
				cpu += time.Duration(ns)
			}
		}
		b, err := os.ReadFile(dir + "status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				vol += n
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				invol += n
			}
		}
	}
	return vol, invol, cpu
}
