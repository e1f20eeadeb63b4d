package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/gateway-api/conformance/tests"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// The environment of `make conformance`: RESTYPLANE_CONFORMANCE=full claims every feature
// restyplane's GatewayClass lists, not only the core ones, and the report goes to the file
// RESTYPLANE_CONFORMANCE_REPORT (relative to the module root) with restyplane's version
// RESTYPLANE_VERSION. RESTYPLANE_CONFORMANCE_CHANNEL=experimental installs the CRDs of
// Gateway API's experimental channel, whose HTTPRoute has rules[].retry (the class then
// claims retries); standard, the default, those of the standard channel.
const (
	channelEnv = "RESTYPLANE_CONFORMANCE_CHANNEL"
	modeEnv    = "RESTYPLANE_CONFORMANCE"
	reportEnv  = "RESTYPLANE_CONFORMANCE_REPORT"
	versionEnv = "RESTYPLANE_VERSION"
	// runEnv names the tests to run (ShortNames, e.g. HTTPRouteWeight, separated by
	// commas); empty runs all.
	runEnv = "RESTYPLANE_CONFORMANCE_RUN"
)

// TestConformance runs Gateway API's conformance suite, profiles GATEWAY-HTTP and
// GATEWAY-GRPC, against restyplane on the harness's cluster: the core tests, or with
// RESTYPLANE_CONFORMANCE=full every test of a feature restyplane claims.
func TestConformance(t *testing.T) {
	r := Run{Features: CoreFeatures, Version: os.Getenv(versionEnv), Test: os.Getenv(runEnv)}
	if strings.Contains(r.Test, ",") {
		// The suite runs one test or all: several are all but the others.
		r.Skip, r.Test = allBut(strings.Split(r.Test, ",")), ""
	} else if os.Getenv(modeEnv) != "full" && r.Test == "" {
		for name, why := range KnownFailures {
			t.Logf("skipped, a known failure: %s: %s", name, why)
			r.Skip = append(r.Skip, name)
		}
	}
	if os.Getenv(modeEnv) == "full" {
		r.Features = nil
		if p := os.Getenv(reportEnv); p != "" {
			r.Report = p
			if !filepath.IsAbs(p) {
				r.Report = filepath.Join("..", p)
			}
		}
	}
	channel := os.Getenv(channelEnv)
	switch channel {
	case "":
		channel = kubetest.ChannelStandard
	case kubetest.ChannelStandard, kubetest.ChannelExperimental:
	default:
		t.Fatalf("%s=%q: want %s or %s", channelEnv, channel, kubetest.ChannelStandard, kubetest.ChannelExperimental)
	}
	c := StartCluster(t, channel)
	addrs := StartRestyplane(t, c)
	r.Addresses = addrs
	waitGatewayClassAccepted(t, c, 2*time.Minute)
	RunSuite(t, c, r)
}

// allBut lists the ShortNames of the suite's tests not among names.
func allBut(names []string) []string {
	var skip []string
	for _, ct := range tests.ConformanceTests {
		if !slices.Contains(names, ct.ShortName) {
			skip = append(skip, ct.ShortName)
		}
	}
	return skip
}
