package web

import (
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
)

// logRequests logs one structured line per request.
func logRequests(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		status := c.Response().StatusCode()
		if err != nil {
			if h := c.App().Config().ErrorHandler; h != nil {
				if herr := h(c, err); herr != nil {
					return herr
				}
			}
			status = c.Response().StatusCode()
		}
		log.Info("request", "method", c.Method(), "path", c.Path(), "status", status,
			"duration", time.Since(start).Round(time.Microsecond).String(), "requestId", c.GetRespHeader(fiber.HeaderXRequestID))
		return nil
	}
}

// bearer authenticates the Authorization header and stores the principal.
func bearer(a *auth.Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h := c.Get(fiber.HeaderAuthorization)
		scheme, token, ok := strings.Cut(h, " ")
		if h == "" {
			return errs.E(errs.Unauthorized, "Authorization", "Missing Authorization header; send Authorization: Bearer <token>")
		}
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return errs.E(errs.Unauthorized, "Authorization", "Authorization header must be: Bearer <token>")
		}
		p, err := a.Authenticate(c.Context(), strings.TrimSpace(token))
		if err != nil {
			return err
		}
		api.SetPrincipal(c, p)
		return c.Next()
	}
}

// limitBody rejects JSON bodies over BodyLimit with a 413 and an errors body. The oversize
// body is read and discarded first, so the client sees the answer instead of a reset.
func limitBody(c *fiber.Ctx) error {
	if n := c.Request().Header.ContentLength(); n > BodyLimit {
		if s := c.Context().RequestBodyStream(); s != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(s, streamLimit))
		}
		return errs.E(errs.TooLarge, "body", "Request body is larger than the limit of %d MiB", BodyLimit>>20)
	}
	if len(c.Body()) > BodyLimit {
		return errs.E(errs.TooLarge, "body", "Request body is larger than the limit of %d MiB", BodyLimit>>20)
	}
	return c.Next()
}

// gunzip inflates request bodies sent with Content-Encoding: gzip (the client compresses
// large record inserts).
func gunzip(c *fiber.Ctx) error {
	if strings.EqualFold(c.Get(fiber.HeaderContentEncoding), "gzip") {
		body, err := c.Request().BodyGunzip()
		if err != nil {
			return errs.Invalidf("body", "Body is not valid gzip: %v", err)
		}
		if len(body) > BodyLimit {
			return errs.E(errs.TooLarge, "body", "Request body is larger than the limit of %d MiB", BodyLimit>>20)
		}
		c.Request().SetBody(body)
		c.Request().Header.Del(fiber.HeaderContentEncoding)
	}
	return c.Next()
}
