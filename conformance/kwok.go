package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kwokStages are the lifecycle kwok plays on the harness's node and its Pods. The node
// becomes Ready with room for any Pod; its only address is its InternalIP (the API server
// would try a Hostname first, which resolves nowhere), where the harness serves the
// kubelet's log endpoint. A Pod it is given becomes Running with an IP from
// the node's Pod CIDR but not Ready: the harness marks it Ready once the program it runs
// for it answers, as a kubelet's readiness probe would. A Pod being deleted is deleted at
// once, as a kubelet does once its containers are gone.
const kwokStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-ready
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      - {address: {{ NodeIP | Quote }}, type: InternalIP}
      daemonEndpoints: {kubeletEndpoint: {Port: %d}}
      allocatable: {cpu: "1k", memory: 1Ti, pods: "1k"}
      capacity: {cpu: "1k", memory: 1Ti, pods: "1k"}
      nodeInfo: {architecture: amd64, operatingSystem: linux, kubeletVersion: kwok, kubeProxyVersion: kwok,
        containerRuntimeVersion: restyplane-conformance, kernelVersion: "", osImage: "", machineID: "", systemUUID: "", bootID: ""}
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-running
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.phase, operator: In, values: [Pending]}
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: true
        restartCount: 0
        state: {running: {startedAt: {{ $now | Quote }}}}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      {{ $podIPs := PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      podIP: {{ index $podIPs 0 | Quote }}
      podIPs:
      {{ range $podIPs }}
      - ip: {{ . | Quote }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: Exists}
  next:
    delete: true
`

// kwokNode is the node kwok plays: Pods get their IPs from podCIDR.
func kwokNode(name, podCIDR string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux"},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}},
	}
}

// startKwok runs kwok for the node, with its stages and nothing of the user's (~/.kwok is
// a fresh directory).
func startKwok(bin, dir, kubeconfig, node, nodeIP, podCIDR string) (*proc, error) {
	home := filepath.Join(dir, "kwok-home")
	stages := filepath.Join(dir, "kwok-stages.yaml")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	// The stages name the kubelet port (kwok's own --node-port would make kwok serve it).
	if err := os.WriteFile(stages, []byte(fmt.Sprintf(kwokStages, kubeletPort)), 0o644); err != nil {
		return nil, fmt.Errorf("kwok's stages: %w", err)
	}
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--config", stages,
		"--manage-single-node", node, "--node-ip", nodeIP, "--cidr", podCIDR,
		// kwok renews the node's Lease, the heartbeat Kubernetes watches.
		"--node-lease-duration-seconds", "40")
	cmd.Env = append(os.Environ(), "HOME="+home)
	return startProc("kwok", filepath.Join(dir, "kwok.log"), cmd, false)
}
