package conformance

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
)

// The names of what the harness creates start with these, followed by the pid of the test
// process, so that what a killed run left can be recognised and removed.
const (
	// netnsPrefix starts the Pods' network namespaces: gwconf-<pid>-<n>.
	netnsPrefix = "gwconf-"
	// linkPrefix starts the bridge (gwc<pid>b<n>) and the host ends of the Pods' veth
	// pairs (gwc<pid>p<n>); a link name has at most 15 bytes.
	linkPrefix = "gwc"
)

// linkSeq numbers the links and namespaces of one test process.
var linkSeq atomic.Int64

// podNetwork is the network of the harness's node: a bridge in the host's namespace with
// the gateway address of a /24, and for each Pod a network namespace joined to the bridge
// by a veth pair, holding the Pod's IP. kwok hands out the Pod IPs from the lower half of
// the /24 (the node's Pod CIDR), so they never meet the bridge's address at .254.
type podNetwork struct {
	bridge  string
	subnet  netip.Prefix
	podCIDR netip.Prefix
	gateway netip.Addr

	mu   sync.Mutex
	pods map[string]string // network namespace -> the Pod IP it holds
}

// newPodNetwork makes the bridge on a /24 of 10.214.0.0/16 that no interface of the host
// uses.
func newPodNetwork() (*podNetwork, error) {
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("iproute2's ip is missing (hack/install.sh test installs it): %w", err)
	}
	removeStaleNetwork()
	x, err := freeSubnet()
	if err != nil {
		return nil, err
	}
	n := &podNetwork{
		bridge:  fmt.Sprintf("%s%db%d", linkPrefix, os.Getpid(), linkSeq.Add(1)),
		subnet:  netip.MustParsePrefix(fmt.Sprintf("10.214.%d.0/24", x)),
		podCIDR: netip.MustParsePrefix(fmt.Sprintf("10.214.%d.0/25", x)),
		gateway: netip.MustParseAddr(fmt.Sprintf("10.214.%d.254", x)),
		pods:    map[string]string{},
	}
	err = ipBatch("",
		"link add "+n.bridge+" type bridge",
		fmt.Sprintf("addr add %s/24 dev %s", n.gateway, n.bridge),
		"link set "+n.bridge+" up")
	if err != nil {
		_ = ipBatch("", "link del "+n.bridge)
		return nil, fmt.Errorf("make the Pod network's bridge (the harness needs CAP_NET_ADMIN: root or a privileged container): %w", err)
	}
	return n, nil
}

// add makes a network namespace holding ip, reachable from the host over the bridge, and
// returns its name.
func (n *podNetwork) add(ip netip.Addr) (string, error) {
	if !n.subnet.Contains(ip) {
		return "", fmt.Errorf("pod IP %s is outside the node's network %s", ip, n.subnet)
	}
	seq := linkSeq.Add(1)
	ns := fmt.Sprintf("%s%d-%d", netnsPrefix, os.Getpid(), seq)
	host := fmt.Sprintf("%s%dp%d", linkPrefix, os.Getpid(), seq)
	if len(host) > 15 {
		return "", fmt.Errorf("link name %s is longer than 15 bytes", host)
	}
	n.mu.Lock()
	n.pods[ns] = ip.String()
	n.mu.Unlock()
	// The host may still know the link address of a deleted Pod that had this IP (kwok
	// hands IPs out again): forget it, or the host sends to the gone Pod until the entry
	// turns stale, for up to a minute.
	err := ipBatch("",
		"neigh flush to "+ip.String()+" dev "+n.bridge,
		"netns add "+ns,
		"link add "+host+" type veth peer name eth0 netns "+ns,
		"link set "+host+" master "+n.bridge,
		"link set "+host+" up")
	if err == nil {
		err = ipBatch(ns,
			fmt.Sprintf("addr add %s/24 dev eth0", ip),
			"link set lo up",
			"link set eth0 up",
			"route add default via "+n.gateway.String())
	}
	if err != nil {
		n.remove(ns)
		return "", fmt.Errorf("network namespace for %s: %w", ip, err)
	}
	return ns, nil
}

// remove deletes a Pod's network namespace; its veth pair goes with it.
func (n *podNetwork) remove(ns string) error {
	n.mu.Lock()
	delete(n.pods, ns)
	n.mu.Unlock()
	return ipBatch("", "netns del "+ns)
}

// close removes the namespaces still there and the bridge.
func (n *podNetwork) close() error {
	n.mu.Lock()
	left := make([]string, 0, len(n.pods))
	for ns := range n.pods {
		left = append(left, ns)
	}
	n.mu.Unlock()
	var errs []string
	for _, ns := range left {
		if err := n.remove(ns); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if err := ipBatch("", "link del "+n.bridge); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove the Pod network: %s", strings.Join(errs, "; "))
	}
	return nil
}
