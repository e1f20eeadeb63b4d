package conformance

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// kcmControllers are the controllers of kube-controller-manager the suite's objects need:
// Deployments make ReplicaSets make Pods, Services get their EndpointSlices (and
// Endpoints), deleted owners take their dependents along, deleted namespaces are
// emptied, and the node lifecycle controller lifts the not-ready taint the API server puts
// on a new node once kwok has made it Ready.
var kcmControllers = []string{"deployment", "replicaset", "endpoint", "endpointslice",
	"garbagecollector", "namespace", "nodelifecycle", "serviceaccount", "serviceaccount-token"}

// nodeMonitorGrace is how long a node may miss its heartbeats (kwok renews its Lease every
// 10 s) before it is NotReady: long, so that a loaded machine never fails the node under
// the suite's Pods.
const nodeMonitorGrace = "5m"

// startControllerManager runs kube-controller-manager as the cluster's administrator,
// signing service account tokens with the API server's key. It serves no port of its own.
func startControllerManager(bin, dir, kubeconfig, saKey string) (*proc, error) {
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--leader-elect=false", "--secure-port=0",
		"--controllers", strings.Join(kcmControllers, ","),
		"--service-account-private-key-file", saKey, "--node-monitor-grace-period", nodeMonitorGrace)
	return startProc("kube-controller-manager", filepath.Join(dir, "kube-controller-manager.log"), cmd, false)
}

// startScheduler runs kube-scheduler as the cluster's administrator. It serves no port of
// its own.
func startScheduler(bin, dir, kubeconfig string) (*proc, error) {
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--leader-elect=false", "--secure-port=0")
	return startProc("kube-scheduler", filepath.Join(dir, "kube-scheduler.log"), cmd, false)
}
