//go:build !nokube

package main

import (
	"testing"

	"github.com/restyplane/restyplane/reconciler"
)

// TestDefaultControllerIsTheReconcilers: the flags' default, written out for the build
// without the reconciler, is the reconciler's own.
func TestDefaultControllerIsTheReconcilers(t *testing.T) {
	if defaultController != reconciler.DefaultController {
		t.Fatalf("defaultController = %q, reconciler.DefaultController = %q", defaultController, reconciler.DefaultController)
	}
	if defaultGatewayController != reconciler.DefaultGatewayController {
		t.Fatalf("defaultGatewayController = %q, reconciler.DefaultGatewayController = %q", defaultGatewayController, reconciler.DefaultGatewayController)
	}
}
