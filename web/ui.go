package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
)

// uiRoutes registers the dashboard pages.
func uiRoutes(app *fiber.App, d Deps) {
	app.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// renderPageError answers a page request that failed.
func renderPageError(c *fiber.Ctx, d Deps, status int, e *errs.Error, msg string) error {
	return c.Status(status).SendString(msg)
}
