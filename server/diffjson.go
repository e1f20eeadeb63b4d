package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// entriesMark is where a diff's entries go in the encoding of its shell. Only the diff's own
// field can match it: inside a JSON string every quote is escaped.
var entriesMark = []byte(`"entries":[]`)

// writeDiffJSON writes shell, a value holding a diff with empty Entries, as the JSON answer
// with entries in their place. Entry bodies are stored JSON that the store wrote with
// encoding/json, so compact and escaped already; encoding/json would scan and compact every
// byte of them again (it re-checks a RawMessage), which for a rollback over 5,000 objects
// costs about as much as the write's SQL. So the bodies are copied as they are.
func writeDiffJSON(w http.ResponseWriter, status int, shell any, entries []api.DiffEntry) error {
	head, err := json.Marshal(shell)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	i := bytes.Index(head, entriesMark)
	if i < 0 {
		return fmt.Errorf("encode answer: %T holds no empty diff", shell)
	}
	i += len(entriesMark) - 1 // before the closing bracket
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:i])
	for n, e := range entries {
		if n > 0 {
			bw.WriteByte(',')
		}
		writeEntry(bw, e)
	}
	bw.Write(head[i:])
	bw.WriteByte('\n')
	_ = bw.Flush() // an error here can only mean the client went away
	return nil
}

// writeEntry writes one entry as encoding/json would.
func writeEntry(bw *bufio.Writer, e api.DiffEntry) {
	bw.WriteString(`{"kind":`)
	writeString(bw, e.Kind)
	bw.WriteString(`,"name":`)
	writeString(bw, e.Name)
	bw.WriteString(`,"op":`)
	writeString(bw, e.Op)
	if len(e.Before) > 0 {
		bw.WriteString(`,"before":`)
		bw.Write(e.Before)
	}
	if len(e.After) > 0 {
		bw.WriteString(`,"after":`)
		bw.Write(e.After)
	}
	bw.WriteByte('}')
}

func writeString(bw *bufio.Writer, s string) {
	v, _ := json.Marshal(s) // a string always encodes
	bw.Write(v)
}

// writeResultJSON writes a write's answer through writeDiffJSON.
func writeResultJSON(w http.ResponseWriter, status int, res *api.WriteResult) error {
	shell := *res
	shell.Diff.Entries = []api.DiffEntry{}
	return writeDiffJSON(w, status, shell, res.Diff.Entries)
}
