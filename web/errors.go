package web

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/sqldb"
)

var statusOf = map[errs.Code]int{
	errs.Invalid:      fiber.StatusBadRequest,
	errs.NotFound:     fiber.StatusNotFound,
	errs.Conflict:     fiber.StatusConflict,
	errs.Unauthorized: fiber.StatusUnauthorized,
	errs.Forbidden:    fiber.StatusForbidden,
	errs.TooLarge:     fiber.StatusRequestEntityTooLarge,
	errs.Unsupported:  fiber.StatusUnsupportedMediaType,
	errs.HeaderLarge:  fiber.StatusRequestHeaderFieldsTooLarge,
	errs.TooMany:      fiber.StatusTooManyRequests,
	errs.Unavailable:  fiber.StatusServiceUnavailable,
	errs.Internal:     fiber.StatusInternalServerError,
}

// statusFor is the HTTP status of an error (500 for codes without one).
func statusFor(e *errs.Error) int {
	if status := statusOf[e.Code]; status != 0 {
		return status
	}
	return fiber.StatusInternalServerError
}

// asAppError turns any error into an *errs.Error, translating fiber's own errors.
func asAppError(err error) *errs.Error {
	var e *errs.Error
	if errors.As(err, &e) {
		return e
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return errs.NotFoundf("path", "No such endpoint")
		case fiber.StatusMethodNotAllowed:
			return errs.NotFoundf("method", "Method not allowed on this path")
		case fiber.StatusRequestEntityTooLarge:
			return errs.E(errs.TooLarge, "body", "Request body is larger than the limit of %d MiB", BodyLimit>>20)
		case fiber.StatusRequestHeaderFieldsTooLarge:
			return errs.E(errs.HeaderLarge, "headers", "Request headers or URL are larger than the server's limit of %d KiB", HeaderLimit>>10)
		case fiber.StatusBadRequest, fiber.StatusUnprocessableEntity:
			return errs.Invalidf("body", "%s", fe.Message)
		}
		return &errs.Error{Code: errs.Internal, Message: fe.Message, Cause: fe}
	}
	return errs.Wrap(err, "internal error")
}

// isAPI reports whether the request is for the JSON API rather than a page.
func isAPI(c *fiber.Ctx) bool {
	p := c.Path()
	return strings.HasPrefix(p, "/v1/") || p == "/v1" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/spaces/") || p == "/healthz"
}

func errorHandler(d Deps) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		e := asAppError(err)
		if e.Code == errs.Internal && sqldb.Unavailable(err) {
			// The pool reconnects by itself once the database is back.
			d.Log.Warn("database unavailable", "path", c.Path(), "err", err)
			e = &errs.Error{Code: errs.Unavailable, Message: "The database cannot be reached right now; try again in a moment", RetryAfter: 2 * time.Second, Cause: err}
		}
		if e.Code == errs.Internal && sqldb.UnstorableText(err) {
			e = errs.Invalidf("", "A value holds the NUL character (U+0000), which this server's database (PostgreSQL) cannot store: remove it and send it again")
		}
		status := statusFor(e)
		msg := e.Message
		if e.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(e.RetryAfter.Seconds())))
		}
		if e.Code == errs.Internal {
			d.Log.Error("request failed", "requestId", c.GetRespHeader(fiber.HeaderXRequestID), "path", c.Path(), "err", err)
			msg = "Internal error; the request id is " + c.GetRespHeader(fiber.HeaderXRequestID)
		}
		// A head too large to read has no path to tell a page from the API: JSON serves both.
		if isAPI(c) || e.Code == errs.HeaderLarge {
			return c.Status(status).JSON(fiber.Map{"errors": []fiber.Map{{"key": e.Key, "message": msg}}})
		}
		return renderPageError(c, d, status, e, msg)
	}
}
