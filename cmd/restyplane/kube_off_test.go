//go:build nokube

package main

import (
	"io"
	"strings"
	"testing"
)

// TestServeWithoutKubernetesRefusesACluster: the build of `make run` serves (TestServe
// runs in it too), but refuses a kubeconfig with a message that says how to get the full
// binary, rather than serve without the Ingresses it was told to follow.
func TestServeWithoutKubernetesRefusesACluster(t *testing.T) {
	err := run(t.Context(), []string{"serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--openresty", "off", "--kubeconfig", "/nonexistent/kubeconfig"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "built without Kubernetes") || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("serve --kubeconfig in a nokube build = %v, want a refusal that names make build", err)
	}
}
