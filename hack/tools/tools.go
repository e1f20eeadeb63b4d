//go:build tools

// Package tools pins the programs that restyplane's tests run but do not link:
// kube-apiserver for the reconciler's envtest suite. hack/install.sh builds it into ./bin.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
