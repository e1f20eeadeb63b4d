package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// gatewayAPIModule is the Go module whose config/crd/<channel> holds the CRDs of the
// Gateway API version restyplane builds against (go.mod names it), so the cluster
// serves exactly the types the reconciler's client knows.
const gatewayAPIModule = "sigs.k8s.io/gateway-api"

// Gateway API's release channels: the standard one, and the experimental one, whose CRDs
// add fields (HTTPRoute's rules[].retry) and kinds to it.
const (
	ChannelStandard     = "standard"
	ChannelExperimental = "experimental"
)

// StartGatewayAPI starts a cluster as Start does, with Gateway API's standard-channel
// CRDs installed (GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant,
// BackendTLSPolicy, ...).
func StartGatewayAPI() (*Cluster, error) {
	return StartGatewayAPIChannel(ChannelStandard)
}

// StartGatewayAPIChannel starts a cluster with the CRDs of Gateway API's channel, those
// of group gateway.networking.k8s.io: the experimental channel's x-k8s.io ones (XBackend,
// XMesh...) use CEL functions this API server's release does not have, and no test
// needs them.
func StartGatewayAPIChannel(channel string) (*Cluster, error) {
	dir, err := gatewayCRDDir(channel)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "gateway.networking.k8s.io_*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("gateway API CRDs in %s: none found (%v)", dir, err)
	}
	return start(files)
}

// StartGatewayAPIT starts a cluster with Gateway API's CRDs for one test and stops it
// when the test ends.
func StartGatewayAPIT(tb testing.TB) *Cluster {
	tb.Helper()
	return startT(tb, StartGatewayAPI)
}

// StartGatewayAPIExperimentalT is StartGatewayAPIT with the experimental channel's CRDs.
func StartGatewayAPIExperimentalT(tb testing.TB) *Cluster {
	tb.Helper()
	return startT(tb, func() (*Cluster, error) { return StartGatewayAPIChannel(ChannelExperimental) })
}

// InstallGatewayCRD installs the CRD of one Gateway API resource ("httproutes") as
// channel has it, over the one the cluster serves: an operator switching channels (or
// versions) under a running reconciler. It returns once the API server has the CRD
// established; its handlers may take a moment more to serve objects by the new schema.
func (c *Cluster) InstallGatewayCRD(tb testing.TB, channel, resource string) {
	tb.Helper()
	dir, err := gatewayCRDDir(channel)
	if err != nil {
		tb.Fatalf("kubetest: %v", err)
	}
	file := filepath.Join(dir, "gateway.networking.k8s.io_"+resource+".yaml")
	if _, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: []string{file}, ErrorIfPathMissing: true}); err != nil {
		tb.Fatalf("kubetest: install the %s channel's %s CRD: %v", channel, resource, err)
	}
}

// gatewayCRDDir finds the channel's CRDs in the module cache with the go command, which
// the tests run under anyway.
func gatewayCRDDir(channel string) (string, error) {
	if channel != ChannelStandard && channel != ChannelExperimental {
		return "", fmt.Errorf("gateway API channel %q: want %s or %s", channel, ChannelStandard, ChannelExperimental)
	}
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
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", channel)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("gateway API CRDs: %w", err)
	}
	return dir, nil
}
