// Package api holds restyplane's resource types, their validation and the error vocabulary:
// the contract that the store, the server, the applier and the reconciler all speak.
package api

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status in the server and nowhere else.
const (
	EInvalid  = "invalid"
	ENotFound = "not_found"
	// EGone: the thing existed but is no longer served: a revision the retention policy
	// pruned (asking again never helps), or a feed resume point (the client lists again).
	EGone               = "gone"
	EConflict           = "conflict"
	EPreconditionFailed = "precondition_failed"
	EUnauthorized       = "unauthorized"
	EForbidden          = "forbidden"
	ETooLarge           = "too_large"
	EUnsupportedMedia   = "unsupported_media_type"
	EUnavailable        = "unavailable"
	// ETooManyRequests: the caller asks more often, or holds more streams, than it may; it
	// may try again later.
	ETooManyRequests = "too_many_requests"
	EInternal        = "internal"
)

// Error is an error a user can act on: a code from the list above, a message that says what
// is wrong, and, for invalid input, the JSON path of the offending field.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EInvalid error about one field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: EInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EInternal for any other
// error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of the first *Error in err's chain; other errors are
// internal and their text is not for clients, so it returns a generic message.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// prefixed returns err with its field placed under prefix, so that nested validation
// reports the whole path ("locations[2].backend").
func prefixed(prefix string, err error) error {
	var e *Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	out := *e
	switch {
	case out.Field == "":
		out.Field = prefix
	case out.Field[0] == '[':
		out.Field = prefix + out.Field
	default:
		out.Field = prefix + "." + out.Field
	}
	return &out
}
