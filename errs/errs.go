// Package errs holds Sluice's single error type: a code that decides the HTTP status, the key
// of the field concerned, a go-i18n message id with its data, and the underlying cause.
package errs

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error; the web layer maps it to a status.
type Code string

// The error codes Sluice uses.
const (
	Invalid      Code = "invalid"
	NotFound     Code = "not_found"
	Conflict     Code = "conflict"
	Unauthorized Code = "unauthorized"
	Forbidden    Code = "forbidden"
	TooLarge     Code = "too_large"
	Unsupported  Code = "unsupported"      // a media type or encoding Sluice does not take
	HeaderLarge  Code = "header_too_large" // request headers or URL over the server's limit
	TooMany      Code = "too_many"         // throttled; the caller should wait
	Unavailable  Code = "unavailable"      // the database cannot be reached; the caller should retry
	Internal     Code = "internal"
)

// Error is the error type every layer returns.
type Error struct {
	Code    Code
	Key     string         // the field or parameter concerned, may be empty
	Message string         // English text shown to API clients
	MsgID   string         // go-i18n message id for pages, may be empty
	Data    map[string]any // template data for MsgID
	Cause   error          // internal cause, logged but never shown
	// RetryAfter tells a throttled caller when to come back (the Retry-After header).
	RetryAfter time.Duration
}

// Error returns the message with its cause, for logs.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// E builds an error with a code, key and a formatted message.
func E(code Code, key, format string, args ...any) *Error {
	return &Error{Code: code, Key: key, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an internal error carrying cause.
func Wrap(cause error, format string, args ...any) *Error {
	return &Error{Code: Internal, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// WithMsg attaches a go-i18n message id and data to e and returns it.
func (e *Error) WithMsg(id string, data map[string]any) *Error {
	e.MsgID, e.Data = id, data
	return e
}

// CodeOf returns the code of err, Internal for foreign errors and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries code.
func Is(err error, code Code) bool { return CodeOf(err) == code }

// NotFoundf is a shorthand for a not-found error about key.
func NotFoundf(key, format string, args ...any) *Error { return E(NotFound, key, format, args...) }

// Invalidf is a shorthand for a bad-input error about key.
func Invalidf(key, format string, args ...any) *Error { return E(Invalid, key, format, args...) }
