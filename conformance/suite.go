package conformance

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwconformance "sigs.k8s.io/gateway-api/conformance"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/gateway-api/conformance/tests"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	"sigs.k8s.io/gateway-api/pkg/features"
	"sigs.k8s.io/yaml"
)

// Profiles are the conformance profiles restyplane is run against.
var Profiles = []suite.ConformanceProfileName{suite.GatewayHTTPConformanceProfileName, suite.GatewayGRPCConformanceProfileName}

// CoreFeatures are the core features of the profiles: a run that claims only these runs
// the core tests, as `go test ./...` does.
var CoreFeatures = []features.FeatureName{features.SupportGateway, features.SupportReferenceGrant,
	features.SupportHTTPRoute, features.SupportGRPCRoute}

// Run says what one run of the suite claims and where its report goes.
type Run struct {
	// Features are the features claimed; none means those restyplane's GatewayClass
	// lists in its status (the suite infers them), which is what `make conformance` runs.
	Features []features.FeatureName
	// Report is the file the ConformanceReport is written to as YAML; empty writes none.
	Report string
	// Version is restyplane's version in the report.
	Version string
	// Test is the ShortName of the one test to run; empty runs every test.
	Test string
	// Skip are the ShortNames of tests not to run.
	Skip []string
	// Addresses give the suite an address restyplane gives a Gateway that asks for it
	// and one it does not (GatewayStaticAddresses).
	Addresses Addresses
}

// RunSuite runs Gateway API's conformance tests, as the suite's own RunConformance does
// but with the options of this harness, against restyplane serving the cluster. When the
// test ends (the suite's results are final then), it logs a summary of the report and
// writes it.
func RunSuite(t *testing.T, c *Cluster, r Run) {
	t.Helper()
	cl, clOpts, err := c.SuiteClient()
	if err != nil {
		t.Fatal(err)
	}
	opts := suite.ConformanceOptions{
		ConfigurableOptions: suite.ConfigurableOptions{
			GatewayClassName:     GatewayClass,
			CleanupBaseResources: false, // the cluster goes with the test
			CleanupTestResources: true,
			SupportedFeatures:    r.Features,
			TimeoutConfig:        config.DefaultTimeoutConfig(),
			Mode:                 "default",
			RunTest:              r.Test,
			SkipTests:            r.Skip,
			ConformanceProfiles:  Profiles,
			Implementation: confv1.Implementation{Organization: "restyplane", Project: "restyplane",
				URL: "https://github.com/restyplane/restyplane", Version: r.Version,
				Contact: []string{"https://github.com/restyplane/restyplane/issues"}},
		},
		Client: cl, ClientOptions: clOpts, Clientset: c.Client, RestConfig: c.Config,
		// No GRPCClient: each request then dials with its own authority, as the suite's
		// own RunConformance does; one shared client kept the first request's authority
		// (:authority) for every later one.
		ManifestFS: []fs.FS{&gwconformance.Manifests},
	}
	if a := r.Addresses; a.Requested != "" {
		ip := gatewayv1.IPAddressType
		opts.UsableNetworkAddresses = []gatewayv1.GatewaySpecAddress{{Type: &ip, Value: a.Requested}}
		opts.UnusableNetworkAddresses = []gatewayv1.GatewaySpecAddress{{Type: &ip, Value: a.Unusable}}
	}
	cs, err := suite.NewConformanceTestSuite(opts)
	if err != nil {
		t.Fatalf("conformance: the suite: %v", err)
	}
	// The suite's Run marks itself done in a cleanup of its own, registered after this
	// one, which therefore runs after it.
	t.Cleanup(func() {
		report, err := cs.Report()
		if err != nil {
			t.Errorf("conformance: report: %v", err)
			return
		}
		t.Log(summary(report))
		if r.Report != "" {
			if err := writeReport(r.Report, report); err != nil {
				t.Errorf("conformance: %v", err)
			}
		}
	})
	cs.Setup(t, tests.ConformanceTests)
	if err := cs.Run(t, tests.ConformanceTests); err != nil {
		t.Fatalf("conformance: run: %v", err)
	}
}

// summary says per profile how many core and extended tests passed, failed and were
// skipped, and which failed.
func summary(r *confv1.ConformanceReport) string {
	var b strings.Builder
	for _, p := range r.ProfileReports {
		fmt.Fprintf(&b, "%s: core %s (passed %d, failed %d, skipped %d)", p.Name, p.Core.Result,
			p.Core.Statistics.Passed, p.Core.Statistics.Failed, p.Core.Statistics.Skipped)
		if p.Extended != nil {
			fmt.Fprintf(&b, "; extended %s (passed %d, failed %d, skipped %d)", p.Extended.Result,
				p.Extended.Statistics.Passed, p.Extended.Statistics.Failed, p.Extended.Statistics.Skipped)
		}
		b.WriteString("\n")
		if len(p.Core.FailedTests) > 0 {
			fmt.Fprintf(&b, "  core failed: %s\n", strings.Join(p.Core.FailedTests, ", "))
		}
		if p.Extended != nil && len(p.Extended.FailedTests) > 0 {
			fmt.Fprintf(&b, "  extended failed: %s\n", strings.Join(p.Extended.FailedTests, ", "))
		}
	}
	return b.String()
}

// writeReport writes the report as YAML, as the suite's own runner does.
func writeReport(path string, report *confv1.ConformanceReport) error {
	b, err := yaml.Marshal(report)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
