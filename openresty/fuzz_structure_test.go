package openresty_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty"
)

// sameStructure renders cfg, which the API accepted for the fuzz input in, and benign, the
// same config with placeholder values, and fails unless the two tokenize into the same
// statements but for argument values: no accepted value may add a directive, a block or
// an argument. It returns cfg's statements and conf, for the caller's checks that the
// values come back from nginx's tokenizer intact.
func sameStructure(t *testing.T, in any, cfg, benign api.Config) ([]stmt, string) {
	t.Helper()
	real, err := openresty.Render(cfg, fuzzOptions)
	if err != nil {
		t.Fatalf("api accepted %+v but Render refused it: %v", in, err)
	}
	placeholder, err := openresty.Render(benign, fuzzOptions)
	if err != nil {
		t.Fatalf("render placeholders: %v", err)
	}
	got, err := tokenize(string(real))
	if err != nil {
		t.Fatalf("nginx would not parse the conf for %+v: %v\n%s", in, err, real)
	}
	want, err := tokenize(string(placeholder))
	if err != nil {
		t.Fatalf("tokenize placeholders: %v", err)
	}
	if diff := cmp.Diff(shapes(want), shapes(got)); diff != "" {
		t.Fatalf("%+v changed the structure of nginx.conf (-placeholders +input):\n%s", in, diff)
	}
	return got, string(real)
}

// shapes is each statement's shape: its name and nesting without the argument values.
func shapes(ss []stmt) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.shape()
	}
	return out
}
