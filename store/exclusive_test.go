package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// helperOpen, when set, makes the test binary open the store at its path and print what
// Open answered: a second process, for TestSecondProcessIsRefused.
const helperOpen = "RESTYPLANE_STORE_TEST_OPEN"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperOpen); path != "" {
		s, err := Open(context.Background(), path)
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error())
			os.Exit(0)
		}
		s.Close()
		os.Stdout.WriteString("opened")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSecondProcessIsRefused: one process owns a history. A second restyplane serve on
// the same data directory would keep a head of its own and write revisions over the
// first one's; it is refused, with an error that says why, and the first goes on.
func TestSecondProcessIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "restyplane.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	second := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperOpen+"="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("second process: %v: %s", err, out)
		}
		return string(out)
	}
	start := time.Now()
	if got := second(); !strings.Contains(got, "in use by another process") {
		t.Fatalf("a second process opening the history said %q, want a refusal that says it is in use", got)
	}
	t.Logf("refused after %s", time.Since(start))
	if _, err := s.Write(context.Background(), meta("after the refusal"), []api.Mutation{{Kind: api.KindBackend, Backend: &api.Backend{Name: "web"}}}); err != nil {
		t.Fatalf("the first process cannot write after the refusal: %v", err)
	}
	s.Close()
	if got := second(); got != "opened" {
		t.Fatalf("once the first closed, a second process opening the history said %q, want it opened", got)
	}
}
