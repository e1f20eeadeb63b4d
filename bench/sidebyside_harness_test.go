package bench

import "testing"

// TestSideBySideHarness runs the side-by-side benchmark's harness with two switches per
// system: each system's switch must reach the load's clients, and the breakdown of
// restyplane's switches must find an apply for each.
func TestSideBySideHarness(t *testing.T) {
	res, resty := runSideBySide(t, 2, 2, 0)
	for _, r := range res {
		if got, want := len(r.total), 2; got != want {
			t.Fatalf("%s: %d switches measured, want %d", r.sys.label(), got, want)
		}
		if r.ok == 0 {
			t.Fatalf("%s: the load got no answer", r.sys.label())
		}
	}
	if _, err := breakdown(resty.in, res[sideResty], resty); err != nil {
		t.Fatal(err)
	}
}
