package conformance

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// ipBatch runs ip commands in one ip process, in the network namespace ns ("" for the
// host's).
func ipBatch(ns string, cmds ...string) error {
	args := []string{"-batch", "-"}
	if ns != "" {
		args = append([]string{"-n", ns}, args...)
	}
	cmd := exec.Command("ip", args...)
	cmd.Stdin = strings.NewReader(strings.Join(cmds, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s (%s): %v: %s", strings.Join(args, " "), strings.Join(cmds, "; "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// freeSubnet picks X for 10.214.X.0/24 that no interface of the host uses, starting from
// one derived from the pid so that concurrent test processes rarely meet.
func freeSubnet() (int, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return 0, fmt.Errorf("list the host's addresses: %w", err)
	}
	used := map[int]bool{}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok {
			if ip4 := ipn.IP.To4(); ip4 != nil && ip4[0] == 10 && ip4[1] == 214 {
				used[int(ip4[2])] = true
			}
		}
	}
	start := os.Getpid() % 256
	for i := range 256 {
		if x := (start + i) % 256; !used[x] {
			return x, nil
		}
	}
	return 0, fmt.Errorf("no free /24 left in 10.214.0.0/16 for a Pod network")
}

// removeStaleNetwork deletes the namespaces and links of test processes that no longer
// run (a run killed before its cleanups).
func removeStaleNetwork() {
	if out, err := exec.Command("ip", "netns", "list").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
			if rest, ok := strings.CutPrefix(name, netnsPrefix); ok && stalePid(rest) {
				_ = ipBatch("", "netns del "+name)
			}
		}
	}
	if ifs, err := net.Interfaces(); err == nil {
		for _, i := range ifs {
			if rest, ok := strings.CutPrefix(i.Name, linkPrefix); ok && stalePid(rest) {
				_ = ipBatch("", "link del "+i.Name)
			}
		}
	}
}

// stalePid reports whether s starts with the pid of a process that is gone.
func stalePid(s string) bool {
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return false
	}
	pid, err := strconv.Atoi(s[:end])
	if err != nil || pid == os.Getpid() {
		return false
	}
	_, err = os.Stat("/proc/" + s[:end])
	return os.IsNotExist(err)
}
