package nginx

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// luaFiles are the Lua modules nginx.conf requires, written into <prefix>/lua at start.
//
//go:embed lua/restyplane/*.lua
var luaFiles embed.FS

// writeLua writes the embedded modules under dir, replacing older copies: a new restyplane
// binary brings its own Lua, which the next reload loads.
func writeLua(dir string) error {
	return fs.WalkDir(luaFiles, "lua", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("lua", path)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := luaFiles.ReadFile(path)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(target, data, 0o644); err != nil {
			return fmt.Errorf("write lua module %s: %w", rel, err)
		}
		return nil
	})
}
