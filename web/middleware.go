package web

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"io"
	"log/slog"
	"strings"
	"sync"
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
		if err := renderError(c, c.Next()); err != nil {
			return err
		}
		status := c.Response().StatusCode()
		log.Info("request", "method", c.Method(), "path", c.Path(), "status", status,
			"duration", time.Since(start).Round(time.Microsecond).String(), "requestId", c.GetRespHeader(fiber.HeaderXRequestID))
		return nil
	}
}

// renderError writes a handler's error as its answer now, through the app's error handler,
// so a middleware can see the status and body that go out; it returns what the error
// handler itself could not write.
func renderError(c *fiber.Ctx, err error) error {
	if err == nil {
		return nil
	}
	if h := c.App().Config().ErrorHandler; h != nil {
		return h(c, err)
	}
	return err
}

// bearer authenticates the Authorization header and stores the principal.
func bearer(a *auth.Authenticator) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h := c.Get(fiber.HeaderAuthorization)
		scheme, token, ok := strings.Cut(h, " ")
		if h == "" {
			refuseUnread(c)
			return errs.E(errs.Unauthorized, "Authorization", "Missing Authorization header; send Authorization: Bearer <token>")
		}
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			refuseUnread(c)
			return errs.E(errs.Unauthorized, "Authorization", "Authorization header must be: Bearer <token>")
		}
		p, err := a.Authenticate(c.Context(), strings.TrimSpace(token))
		if err != nil {
			refuseUnread(c)
			return err
		}
		api.SetPrincipal(c, p)
		return c.Next()
	}
}

// refuseUnread closes the connection after the answer when the request's body was not read:
// an anonymous client's body is never read at all, and its bytes must not be taken for the
// next request on the connection.
func refuseUnread(c *fiber.Ctx) {
	if c.Context().RequestBodyStream() != nil || c.Request().Header.ContentLength() != 0 {
		c.Context().SetConnectionClose()
	}
}

// limitBody reads a JSON or form body through a limit: bodies over BodyLimit get a 413 and an
// errors body, and are never held whole in memory (a chunked body is read only up to the limit).
// The oversize rest is read and discarded, so the client sees the answer instead of a reset.
func limitBody(c *fiber.Ctx) error { return readBody(c, BodyLimit) }

// readBody is limitBody with a limit of max bytes.
func readBody(c *fiber.Ctx, max int) error {
	tooLarge := errs.E(errs.TooLarge, "body", "Request body is larger than the limit of %d MiB", max>>20) // both limits are whole MiB
	s := c.Context().RequestBodyStream()
	if n := c.Request().Header.ContentLength(); n > max {
		discard(s)
		return tooLarge
	}
	if s == nil {
		if len(c.Request().Body()) > max {
			return tooLarge
		}
		return c.Next()
	}
	buf, err := io.ReadAll(io.LimitReader(s, int64(max)+1))
	if err != nil {
		return errs.Invalidf("body", "Could not read the request body: %v", err)
	}
	if len(buf) > max {
		discard(s)
		return tooLarge
	}
	c.Request().SetBody(buf)
	return c.Next()
}

// discard reads what is left of a body stream, up to the server's limit.
func discard(s io.Reader) {
	if s != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(s, streamLimit))
	}
}

// gunzip inflates request bodies sent with Content-Encoding: gzip (the client compresses
// large record inserts) through a limited reader: inflating stops at BodyLimit, so a small
// body that inflates to gigabytes costs no more memory than the limit. It runs after the token
// check and limitBody. Other encodings are refused.
func gunzip(c *fiber.Ctx) error {
	enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding))
	switch {
	case enc == "" || strings.EqualFold(enc, "identity"):
		return c.Next()
	case !strings.EqualFold(enc, "gzip"):
		return errs.E(errs.Unsupported, "Content-Encoding", "Content-Encoding %q is not supported; send gzip or no encoding", enc)
	}
	zr, err := gzip.NewReader(bytes.NewReader(c.Request().Body()))
	if err != nil {
		return errs.Invalidf("body", "Body is not valid gzip: %v", err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, BodyLimit+1))
	if err != nil {
		return errs.Invalidf("body", "Body is not valid gzip: %v", err)
	}
	if len(body) > BodyLimit {
		return errs.E(errs.TooLarge, "body", "Request body inflates past the limit of %d MiB", BodyLimit>>20)
	}
	c.Request().SetBody(body)
	c.Request().Header.Del(fiber.HeaderContentEncoding)
	return c.Next()
}

// deadline bounds the store work of an API request: reads by read, writes by write. A
// request past it is interrupted (a write rolls back) and answers 503 with the setting to
// raise, so one costly filter cannot hold the server's cores or its writer.
func deadline(read, write time.Duration) fiber.Handler {
	read, write = cmp.Or(read, 10*time.Second), cmp.Or(write, 2*time.Minute)
	return func(c *fiber.Ctx) error {
		d, setting := write, "SLUICE_WRITE_TIMEOUT"
		if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
			d, setting = read, "SLUICE_QUERY_TIMEOUT"
		}
		start := time.Now()
		cancel := api.SetDeadline(c, d)
		defer cancel()
		err := c.Next()
		if err != nil && time.Since(start) >= d {
			return errs.E(errs.Unavailable, "timeout", "The request took longer than %s (%s) and was stopped: narrow the filter or search, or ask in smaller parts", d, setting)
		}
		return err
	}
}

// FairShare is how many API requests one credential anyone can hold (a visitor's space token,
// a guest, a clip link, the publishable key) may have in flight at once; more wait their turn
// (within the request's deadline). Such a caller sending costly requests in parallel then holds
// a few of the database's readers and cores, never all of them. The environment's own keys and
// users are not queued: a backend's parallel workers are its business.
const FairShare = 2

// fairShare queues a credential's requests beyond FairShare. The credential is the principal's
// kind, actor and space: every visitor of an embedded importer has its own space, every guest
// its own id.
func fairShare(n int) fiber.Handler {
	var mu sync.Mutex
	slots := map[string]chan struct{}{}
	users := map[string]int{}
	return func(c *fiber.Ctx) error {
		p := api.PrincipalOf(c)
		if p == nil || auth.Trusted(p) {
			return c.Next()
		}
		key := string(p.Kind) + "\x00" + p.ActorID + "\x00" + p.SpaceID + "\x00" + p.UserID
		mu.Lock()
		ch := slots[key]
		if ch == nil {
			ch = make(chan struct{}, n)
			slots[key] = ch
		}
		users[key]++
		mu.Unlock()
		defer func() {
			mu.Lock()
			if users[key]--; users[key] == 0 {
				delete(slots, key)
				delete(users, key)
			}
			mu.Unlock()
		}()
		select {
		case ch <- struct{}{}:
		case <-api.Deadline(c):
			return errs.E(errs.TooMany, "Authorization", "Too many requests of this credential at once: wait for some to finish")
		}
		defer func() { <-ch }()
		return c.Next()
	}
}
