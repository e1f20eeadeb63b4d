package nginx

import (
	_ "embed"
	"fmt"
	"os"
)

// h2cScript is the njs script of the h2c router (render's h2c.go), written where the
// conf names it (render.Layout.H2CScript) at start: nginx reads it when it loads a conf.
//
//go:embed njs/h2c.js
var h2cScript []byte

// writeNJS writes the embedded scripts, replacing older copies as writeLua does.
func writeNJS(l layout) error {
	if err := os.MkdirAll(l.NJSDir(), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", l.NJSDir(), err)
	}
	if err := writeFileAtomic(l.H2CScript(), h2cScript, 0o644); err != nil {
		return fmt.Errorf("write njs script: %w", err)
	}
	return nil
}
