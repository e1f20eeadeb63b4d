package render

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// routeChunk bounds the pieces the route tables are written in: nginx's tokenizer takes
// a Lua block's string of at most about 4 KiB, and luaQuote may write a byte as four.
const routeChunk = 512

// routeTables numbers the blocks that route by conditions and writes their tables, in
// that order, as the JSON that restyplane.match decodes once per reload.
func (v *confView) routeTables() error {
	var tables []*routeTable
	for i := range v.Servers {
		if t := v.Servers[i].route; t != nil {
			tables = append(tables, t)
			v.Servers[i].Dispatch = len(tables)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tables); err != nil {
		return fmt.Errorf("encode route tables: %w", err)
	}
	data := bytes.TrimSpace(buf.Bytes())
	for len(data) > 0 {
		n := min(routeChunk, len(data))
		v.Routes = append(v.Routes, string(data[:n]))
		data = data[n:]
	}
	return nil
}
