// Package conformance runs Gateway API's conformance suite (sigs.k8s.io/gateway-api/conformance,
// imported as a library and run as it is) against restyplane, on a cluster made of
// Kubernetes' own programs: kube-apiserver and etcd (reconciler/kubetest),
// kube-controller-manager and kube-scheduler of the same release, and kwok for a node.
// Deployments, ReplicaSets, Pods and EndpointSlices are made by Kubernetes itself.
//
// kwok does a kubelet's bookkeeping: the node's status and lease, and each Pod's phase and
// IP, taken from the node's Pod CIDR. The harness does the rest of a kubelet's work for
// the suite's Pods: it runs the suite's own echo-basic (built from the module) for each
// Pod, as a process in a network namespace of its own holding the Pod's IP, and marks the
// Pod Ready once it answers there, as a readiness probe would. nginx and the tests reach
// the Pods over a bridge in the host's namespace, as a node reaches its Pods.
package conformance
