package conformance

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestMain removes the restyplane and echo-basic the tests built. controller-runtime's
// log, which envtest and the suite's client write to, is discarded: the tests say what
// failed themselves.
func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	code := rptest.Main(m)
	removeEchoBasic()
	os.Exit(code)
}
