// Package web assembles the fiber application: configuration, middleware, the single route
// table (routes.go) and the error handler.
package web

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/gofiber/fiber/v2/middleware/requestid"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/mail"
	"github.com/sluice/sluice/store"
)

// BodyLimit is the largest JSON request body Sluice accepts.
const BodyLimit = 10 << 20

// HeaderLimit is the largest request head (request line and headers) Sluice reads; a larger
// one gets a 431 with a JSON error.
const HeaderLimit = 16 << 10

// streamLimit is the largest body the server reads at all (file uploads); JSON routes enforce
// BodyLimit themselves so an oversize request still gets a JSON error rather than a reset.
const streamLimit = 1 << 30

// Deps is everything the web layer needs.
type Deps struct {
	// AllowPrivateWebhooks lets agents' webhook URLs point at loopback and private addresses
	// (SLUICE_ALLOW_PRIVATE_WEBHOOKS, for development); refused by default.
	AllowPrivateWebhooks bool
	Store                *store.DB
	Auth                 *auth.Authenticator
	Tokens               *auth.Tokens
	Log                  *slog.Logger
	BaseURL              string // public URL, e.g. https://sluice.example.com; decides Secure cookies
	SessionSecret        []byte // signs and encrypts dashboard session cookies
	// Events feeds GET /v1/events/stream; the caller starts and stops it (before shutting the
	// app down, so open streams end). Nil makes the stream answer 500.
	Events *events.Notifier
	// StreamHeartbeat is the keep-alive interval of event streams (default 15 s).
	StreamHeartbeat time.Duration
	// FilesDir keeps uploaded files (<data dir>/files) with SQLite; with PostgreSQL their
	// bytes are in the database and FilesDir holds only what is being received.
	FilesDir string
	// Sealer encrypts secrets at rest.
	Sealer *auth.Sealer
	// SMTP sends mail (invitations); without a host mail stays in the outbox.
	SMTP mail.SMTP
	// QueryTimeout and WriteTimeout bound an API read and write (0: 10 s and 2 minutes).
	QueryTimeout, WriteTimeout time.Duration
	// ClipLinkTTL is how long a public data clip's link lasts (0: 30 days).
	ClipLinkTTL time.Duration
	// Jobs and Ingest are the services the workers run on, built once by cmd/sluice; nil
	// (tests that run no workers): New builds its own on Store and FilesDir.
	Jobs   *jobs.Service
	Ingest *ingest.Service
	// Process is this run of the node (its heartbeat is written by cmd/sluice's automation);
	// NodeTimeout is how long a silent node counts as running. An Idempotency-Key in flight
	// under another process is busy while that process's node beats, and abandoned after.
	// Zero values (tests): a process of its own that no heartbeat names.
	Process     store.Process
	NodeTimeout time.Duration
}

// New returns the configured fiber app.
func New(d Deps) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:           "Sluice",
		BodyLimit:         streamLimit,
		StreamRequestBody: true,
		// Uploads stream into their file; fasthttp would otherwise spool or buffer the form first.
		DisablePreParseMultipartForm: true,
		DisableStartupMessage:        true,
		ErrorHandler:                 errorHandler(d),
		ReadBufferSize:               HeaderLimit,
		ReadTimeout:                  60 * time.Second,
		WriteTimeout:                 120 * time.Second,
		IdleTimeout:                  120 * time.Second,
	})
	app.Use(requestid.New())
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		d.Log.Error("panic", "requestId", c.GetRespHeader(fiber.HeaderXRequestID), "panic", e)
	}}))
	app.Use(logRequests(d.Log))
	for _, h := range securityHeaders(d.BaseURL, allowlist{d.Store}) {
		app.Use(h)
	}
	app.Use("/v1", cors(allowlist{d.Store}))
	app.Use("/api/v1", cors(allowlist{d.Store}))
	routes(app, d)
	return app
}
