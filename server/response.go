package server

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as the JSON answer with status. An encoding error can only mean the
// client went away, and there is no one left to tell.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
