//go:build tools

// Package tools pins the programs that restyplane's tests run but do not link:
// kube-apiserver for the reconciler's envtest suite, and kube-controller-manager and
// kube-scheduler of the same release for the Gateway API conformance harness, which needs
// Kubernetes itself to make Deployments' Pods and Services' EndpointSlices.
// hack/install.sh builds them into ./bin.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
