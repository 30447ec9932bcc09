// Package api holds the JSON handlers under /v1, one file per resource. Wire types live here
// and are built from model structs by toXxxJSON functions.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const principalKey = "sluice.principal"

// SetPrincipal stores the authenticated principal of the request.
func SetPrincipal(c *fiber.Ctx, p *auth.Principal) { c.Locals(principalKey, p) }

// PrincipalOf returns the request's principal, or nil when the request is anonymous.
func PrincipalOf(c *fiber.Ctx) *auth.Principal {
	p, _ := c.Locals(principalKey).(*auth.Principal)
	return p
}

// Time is a timestamp on the wire: RFC 3339 in UTC with milliseconds.
type Time time.Time

// MarshalJSON writes the time as "2006-01-02T15:04:05.000Z".
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// wireTime converts an optional time for the wire.
func wireTime(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	v := Time(*t)
	return &v
}

// OptTime is a request field that tells apart "absent", "null" and a time.
type OptTime struct {
	Set   bool
	Value *time.Time
}

// UnmarshalJSON accepts null or an RFC 3339 string.
func (o *OptTime) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("must be an RFC 3339 date-time string or null")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return errors.New("must be an RFC 3339 date-time string or null")
	}
	t = t.UTC()
	o.Value = &t
	return nil
}

// data writes {"data": v}.
func data(c *fiber.Ctx, v any) error { return c.JSON(fiber.Map{"data": v}) }

// success writes {"data":{"success":true}}.
func success(c *fiber.Ctx) error { return data(c, fiber.Map{"success": true}) }

// bind decodes the JSON body into dst. An empty body leaves dst as it is; malformed JSON and
// wrong types are invalid errors naming the field.
func bind(c *fiber.Ctx, dst any) error {
	body := c.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errs.Invalidf("body", "Request body must be a single JSON value")
	}
	return nil
}

// jsonError turns a decoding error into a clear invalid error.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		key := te.Field
		if key == "" {
			return errs.Invalidf("body", "Request body must be a JSON %s, got %s", expectedKind(te), te.Value)
		}
		return errs.Invalidf(key, "Field %q must be %s, got %s", key, expectedKind(te), te.Value)
	case errors.As(err, &se):
		return errs.Invalidf("body", "Malformed JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.Invalidf("body", "Malformed JSON: unexpected end of input")
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); strings.HasPrefix(msg, "json: ") && i > 0 {
		msg = msg[i+2:]
	}
	return errs.Invalidf("body", "Invalid request body: %s", msg)
}

func expectedKind(te *json.UnmarshalTypeError) string {
	switch te.Type.Kind().String() {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "float64", "int32":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "of type " + te.Type.String()
}

// rawObject checks that r, when present, is a JSON object.
func rawObject(key string, r json.RawMessage) error {
	t := bytes.TrimSpace(r)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	if t[0] != '{' {
		return errs.Invalidf(key, "Field %q must be an object", key)
	}
	return nil
}

// rawArray checks that r, when present, is a JSON array.
func rawArray(key string, r json.RawMessage) error {
	t := bytes.TrimSpace(r)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	if t[0] != '[' {
		return errs.Invalidf(key, "Field %q must be an array", key)
	}
	return nil
}

// has reports whether the query string carries key at all (even with an empty value).
func has(c *fiber.Ctx, key string) bool { return c.Context().QueryArgs().Has(key) }

// queryBool reads an optional boolean query parameter.
func queryBool(c *fiber.Ctx, key string) (*bool, error) {
	if !has(c, key) {
		return nil, nil
	}
	v, err := strconv.ParseBool(c.Query(key))
	if err != nil {
		return nil, errs.Invalidf(key, "Query parameter %q must be true or false", key)
	}
	return &v, nil
}

// queryTime reads an optional RFC 3339 query parameter.
func queryTime(c *fiber.Ctx, key string) (*time.Time, error) {
	s := c.Query(key)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, errs.Invalidf(key, "Query parameter %q must be an RFC 3339 date-time", key)
	}
	t = t.UTC()
	return &t, nil
}

// page reads pageSize and pageNumber with the resource's default size and a ceiling.
func page(c *fiber.Ctx, def, max int) (model.Page, error) {
	p := model.Page{Size: def, Number: 1}
	for key, dst := range map[string]*int{"pageSize": &p.Size, "pageNumber": &p.Number} {
		s := c.Query(key)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return p, errs.Invalidf(key, "Query parameter %q must be a whole number of at least 1", key)
		}
		*dst = n
	}
	if p.Size > max {
		return p, errs.Invalidf("pageSize", "Query parameter \"pageSize\" must be at most %d", max)
	}
	return p, nil
}

// sortDesc reads sortDirection (asc or desc).
func sortDesc(c *fiber.Ctx) (bool, error) {
	switch strings.ToLower(c.Query("sortDirection")) {
	case "", "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, errs.Invalidf("sortDirection", "Query parameter \"sortDirection\" must be asc or desc")
}

// forbidden is the error for a credential that may not do something.
func forbidden(format string, args ...any) error {
	return errs.E(errs.Forbidden, "Authorization", format, args...)
}

// environmentScope decides which environment a request may act on: the requested one when the
// principal reaches it, else the principal's own.
func environmentScope(p *auth.Principal, requested string) (string, error) {
	if requested == "" {
		return p.EnvironmentID, nil
	}
	if !p.ReachesEnvironment(requested) {
		return "", forbidden("This token cannot reach environment %s", requested)
	}
	return requested, nil
}

// nonEmptyList keeps nil slices out of JSON.
func nonEmptyList(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// bearerOf is the token the request came with.
func bearerOf(c *fiber.Ctx) string {
	h := c.Get(fiber.HeaderAuthorization)
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// deadlineKey holds a request's context with its deadline (SetDeadline).
const deadlineKey = "sluice.deadline"

// SetDeadline gives the request's store calls a deadline: past it, a query is interrupted and
// the request answers 503. The context keeps the request's values (an Idempotency-Key).
func SetDeadline(c *fiber.Ctx, d time.Duration) context.CancelFunc {
	ctx, cancel := context.WithTimeout(c.Context(), d)
	c.Locals(deadlineKey, ctx)
	return cancel
}

// ctxOf is the context a handler passes to the store: the request's, with its deadline.
func ctxOf(c *fiber.Ctx) context.Context {
	if ctx, ok := c.Locals(deadlineKey).(context.Context); ok {
		return ctx
	}
	return c.Context()
}

// Deadline is closed when the request's deadline (SetDeadline) passes.
func Deadline(c *fiber.Ctx) <-chan struct{} { return ctxOf(c).Done() }
