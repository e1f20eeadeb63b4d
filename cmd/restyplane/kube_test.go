//go:build !nokube

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
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

// TestServing: an instance serves the revision it runs, and tells of its last apply only
// when that failed on a newer revision.
func TestServing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		applied int64
		last    *api.ApplyRecord
		want    reconciler.Serving
	}{
		{"none yet", 0, nil, reconciler.Serving{}},
		{"applied", 4, &api.ApplyRecord{Revision: 4, Outcome: api.OutcomeSuccess}, reconciler.Serving{Revision: 4}},
		{"rejected", 4, &api.ApplyRecord{Revision: 5, Outcome: api.OutcomeRejected, Error: "nginx: [emerg]"},
			reconciler.Serving{Revision: 4, Failed: 5, Outcome: api.OutcomeRejected, Error: "nginx: [emerg]"}},
		{"an older failure", 6, &api.ApplyRecord{Revision: 5, Outcome: api.OutcomeFailed, Error: "dial"}, reconciler.Serving{Revision: 6}},
	} {
		if got := serving(tc.applied, tc.last); !cmp.Equal(got, tc.want) {
			t.Errorf("%s: serving = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
