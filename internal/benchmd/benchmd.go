// Package benchmd writes benchmark results into BENCHMARKS.md, where each benchmark owns
// one section between its markers and replaces only that section when it runs.
package benchmd

import (
	"os"
	"strings"
)

// WriteSection replaces the section called name in the markdown file at path with body,
// or appends it when the file has no such section yet.
func WriteSection(path, name, body string) error {
	begin, end := "<!-- BEGIN "+name+" -->", "<!-- END "+name+" -->"
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(old)
	if doc == "" {
		doc = "# Benchmarks\n\nWritten by `make bench`; each section belongs to one benchmark and is replaced when it runs.\n"
	}
	section := begin + "\n" + body + end
	if i, j := strings.Index(doc, begin), strings.Index(doc, end); i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(end):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
