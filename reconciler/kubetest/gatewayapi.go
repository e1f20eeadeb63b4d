package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gatewayAPIModule is the Go module whose config/crd/standard holds the CRDs of the
// Gateway API version restyplane builds against (go.mod names it), so the cluster
// serves exactly the types the reconciler's client knows.
const gatewayAPIModule = "sigs.k8s.io/gateway-api"

// StartGatewayAPI starts a cluster as Start does, with Gateway API's standard-channel
// CRDs installed (GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant,
// BackendTLSPolicy, ...).
func StartGatewayAPI() (*Cluster, error) {
	dir, err := gatewayCRDDir()
	if err != nil {
		return nil, err
	}
	return start([]string{dir})
}

// StartGatewayAPIT starts a cluster with Gateway API's CRDs for one test and stops it
// when the test ends.
func StartGatewayAPIT(tb testing.TB) *Cluster {
	tb.Helper()
	return startT(tb, StartGatewayAPI)
}

// gatewayCRDDir finds the standard CRDs in the module cache with the go command, which
// the tests run under anyway.
func gatewayCRDDir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", gatewayAPIModule)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("find %s: %w", gatewayAPIModule, err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "standard")
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("gateway API CRDs: %w", err)
	}
	return dir, nil
}
