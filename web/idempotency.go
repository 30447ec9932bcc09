package web

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/store"
)

// idempotency answers writes sent with an Idempotency-Key: for 24 hours the same
// key from the same principal gets the first request's answer back, marked
// Idempotent-Replayed, instead of a second write. The key's row is marked in the transaction
// of the request's first write, so a retry after a crash that lost the answer is told the
// write happened rather than repeating it. Kept answers are sealed with the master key:
// they may carry credentials (a new space's token, a PAT, a secret's value), and a copied
// database must not hand them out.
type idempotency struct {
	db     *store.DB
	sealer *auth.Sealer
	// process owns the keys this node has in flight; a key under another process is busy
	// while that process's node has beaten within timeout, and was left by a stopped one after.
	process store.Process
	timeout time.Duration
}

func newIdempotency(db *store.DB, sealer *auth.Sealer, process store.Process, timeout time.Duration) *idempotency {
	if process.Run == "" {
		process = store.NewProcess(process.Node)
	}
	return &idempotency{db: db, sealer: sealer, process: process, timeout: cmp.Or(timeout, store.DefaultNodeTimeout)}
}

// handler is the middleware; it runs after authentication. With body, the request's body
// (read by then) is part of what a retry must repeat; an upload's streams to disk and is not.
func (m *idempotency) handler(body bool) fiber.Handler {
	return func(c *fiber.Ctx) error { return m.handle(c, body) }
}

func (m *idempotency) handle(c *fiber.Ctx, hashBody bool) error {
	key := c.Get("Idempotency-Key")
	if key == "" || c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead || c.Method() == fiber.MethodOptions {
		return c.Next()
	}
	if len(key) > 255 || strings.IndexFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
		return errs.Invalidf("Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters")
	}
	p := api.PrincipalOf(c)
	if p == nil || p.Kind == auth.PublishableKey {
		// Everyone who embeds the importer holds the same publishable key: one visitor's key
		// must never replay another's answer (a space and its token), so it is not honoured.
		return c.Next()
	}
	scope := strings.Join([]string{p.AccountID, string(p.Kind), p.EnvironmentID, p.SpaceID, p.UserID, p.ActorID, key}, "\x00")
	id := sha256.Sum256([]byte(scope))
	rowID := hex.EncodeToString(id[:])
	fp := c.Method() + " " + c.OriginalURL()
	if hashBody {
		sum := sha256.Sum256(c.Body())
		fp += " " + hex.EncodeToString(sum[:8])
	}
	claim, err := m.db.ClaimIdempotencyKey(c.Context(), rowID, fp, m.process, m.db.Now().Add(-m.timeout))
	if err != nil {
		return err
	}
	if claim.State != store.IdemNew {
		refuseUnread(c) // an upload answered from the key leaves its body unread
	}
	switch claim.State {
	case store.IdemDone:
		body, err := m.sealer.Open(claim.Body)
		if err != nil { // kept by an earlier version, unsealed, or under another master key
			return errs.E(errs.Conflict, "Idempotency-Key", "The request with this Idempotency-Key was carried out; its answer can no longer be replayed: read the resource to see its result")
		}
		c.Set("Idempotent-Replayed", "true")
		if claim.ContentType != "" {
			c.Set(fiber.HeaderContentType, claim.ContentType)
		}
		return c.Status(claim.Status).Send(body)
	case store.IdemInFlight:
		return errs.E(errs.Conflict, "Idempotency-Key", "A request with this Idempotency-Key is still being carried out (perhaps by another Sluice node); retry when it has finished")
	case store.IdemLost:
		return errs.E(errs.Conflict, "Idempotency-Key", "The request with this Idempotency-Key was carried out, but the server stopped before answering it; it was not carried out again: read the resource to see its result")
	case store.IdemMismatched:
		return errs.Invalidf("Idempotency-Key", "This Idempotency-Key was used within the last 24 hours for a different request (%s); use a new key for a new request", strings.Join(strings.SplitN(claim.Fingerprint, " ", 3)[:2], " "))
	}
	c.Context().SetUserValue(store.IdempotencyContextKey, rowID)
	if err := renderError(c, c.Next()); err != nil {
		return err
	}
	c.Context().RemoveUserValue(store.IdempotencyContextKey)
	resp := c.Response()
	status := resp.StatusCode()
	keep := status < 500 && !resp.IsBodyStream()
	body := m.sealer.Seal(resp.Body())
	if ferr := m.db.FinishIdempotencyKey(c.Context(), rowID, keep, status, string(resp.Header.ContentType()), body); ferr != nil {
		return ferr
	}
	return nil
}
