package benchmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSectionReplacesOnlyItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	for _, step := range []struct{ name, body string }{{"a", "first-a\n"}, {"b", "only-b\n"}, {"a", "second-a\n"}} {
		if err := WriteSection(path, step.name, step.body); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	doc := string(b)
	if strings.Contains(doc, "first-a") || !strings.Contains(doc, "only-b") || !strings.Contains(doc, "second-a") {
		t.Fatalf("document after rewriting section a:\n%s", doc)
	}
	if strings.Index(doc, "second-a") > strings.Index(doc, "only-b") {
		t.Fatalf("section a moved:\n%s", doc)
	}
}
