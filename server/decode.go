package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/restyplane/restyplane/api"
)

// Body limits. A single object is small (a backend with the maximum 1,000 endpoints is
// about 60 KB, a certificate with its key at most 128 KB); a whole config of thousands of
// objects is not.
const (
	maxObjectBody = 1 << 20
	maxConfigBody = 64 << 20
	// maxDepth is far above what any restyplane object nests (a config is 5 levels deep)
	// and far below what would cost the decoder real work.
	maxDepth = 32
)

// decode reads a JSON request body into v, strictly: the content type must be JSON, the
// body at most limit bytes, valid UTF-8, one JSON object, nested at most maxDepth, without
// duplicate keys and without fields that v does not have. Strictness here is a security
// property: a value the server and some other parser read differently is how injection
// starts.
func decode(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return api.Errorf(api.ETooLarge, "request body is larger than %d bytes", limit)
		}
		return api.Errorf(api.EInvalid, "reading the request body failed")
	}
	return decodeJSON(body, v)
}

// requireJSON refuses a request whose Content-Type is not application/json (UTF-8).
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return api.Errorf(api.EUnsupportedMedia, "Content-Type must be application/json")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return api.Errorf(api.EUnsupportedMedia, "Content-Type must be application/json")
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return api.Errorf(api.EUnsupportedMedia, "Content-Type must be application/json with no parameters but charset=utf-8")
		}
	}
	return nil
}

// decodeJSON is decode without the HTTP: the checks on the bytes, then the decoding.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return api.Errorf(api.EInvalid, "request body is empty")
	}
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD; refuse it instead.
	if !utf8.Valid(body) {
		return api.Errorf(api.EInvalid, "request body is not valid UTF-8")
	}
	if err := checkShape(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return nil
}

// frame is one open object or array while checkShape walks the tokens.
type frame struct {
	object  bool
	wantKey bool
	keys    map[string]bool
}

// checkShape walks the body's tokens and refuses what encoding/json would accept silently:
// more than one value, a top level that is not an object, nesting deeper than maxDepth and
// duplicate keys (encoding/json keeps the last one; another reader might keep the first).
func checkShape(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a huge number is the field's problem, reported with its name later
	var stack []*frame
	values := 0
	done := func() {
		if len(stack) == 0 {
			values++
		} else if top := stack[len(stack)-1]; top.object {
			top.wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return decodeError(err)
		}
		if values > 0 {
			return api.Errorf(api.EInvalid, "request body must hold exactly one JSON value")
		}
		if len(stack) == 0 && tok != json.Delim('{') {
			return api.Errorf(api.EInvalid, "request body must be a JSON object")
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				done()
				continue
			}
			key, _ := tok.(string)
			if stack[n-1].keys[key] {
				return api.Errorf(api.EInvalid, "key %q appears twice in one object", printable(key))
			}
			stack[n-1].keys[key] = true
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= maxDepth {
				return api.Errorf(api.EInvalid, "request body nests deeper than %d levels", maxDepth)
			}
			f := &frame{object: tok == json.Delim('{')}
			if f.object {
				f.wantKey, f.keys = true, map[string]bool{}
			}
			stack = append(stack, f)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
	if len(stack) > 0 {
		return api.Errorf(api.EInvalid, "request body is truncated JSON")
	}
	if values != 1 {
		return api.Errorf(api.EInvalid, "request body must hold exactly one JSON value")
	}
	return nil
}

// decodeError turns encoding/json's errors into invalid-input errors that name the field
// and never echo the offending value (it may be megabytes long).
func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return api.Errorf(api.EInvalid, "request body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return api.Invalid(field, "must be %s", jsonType(typ.Type.Kind().String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return api.Errorf(api.EInvalid, "request body is truncated JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return api.Invalid(printable(strings.Trim(name, `"`)), "unknown field")
	}
	return api.Errorf(api.EInvalid, "request body does not decode: %s", printable(err.Error()))
}

// jsonType names a Go kind the way a JSON client thinks of it.
func jsonType(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer in range"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return fmt.Sprintf("a %s", kind)
}

// printable shortens s and hides control characters, for echoing input in a message.
func printable(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
}
