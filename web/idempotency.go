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
	raw := c.Get("Idempotency-Key")
	if raw == "" || c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead || c.Method() == fiber.MethodOptions {
		return c.Next()
	}
	if len(raw) > 255 || strings.IndexFunc(raw, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
		return errs.Invalidf("Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters")
	}
	p := api.PrincipalOf(c)
	if p == nil || p.Kind == auth.PublishableKey {
		// Everyone who embeds the importer holds the same publishable key: one visitor's key
		// must never replay another's answer (a space and its token), so it is not honoured.
		return c.Next()
	}
	scope := strings.Join([]string{p.AccountID, string(p.Kind), p.EnvironmentID, p.SpaceID, p.UserID, p.ActorID, raw}, "\x00")
	id := sha256.Sum256([]byte(scope))
	rowID := hex.EncodeToString(id[:])
	fp := c.Method() + " " + c.OriginalURL()
	if hashBody {
		sum := sha256.Sum256(c.Body())
		fp += " " + hex.EncodeToString(sum[:8])
	}
	key := &store.IdemKey{ID: rowID, Fingerprint: fp, Owner: m.process.String(), Alive: m.db.Now().Add(-m.timeout), InWrite: claimsInWrite(c), Seal: m.sealer.Seal}
	if key.InWrite {
		return m.claimInWrite(c, key)
	}
	if done, err := m.answerFromKey(c, key); done || err != nil {
		return err
	}
	if err := runWithKey(c, key); err != nil {
		return err
	}
	status, ctype, body, keep := m.answer(c)
	return m.db.FinishIdempotencyKey(c.Context(), rowID, keep, status, ctype, body)
}

// runWithKey runs the rest of the request with its key in its context, where its write
// transactions find it (sqldb.IdemKey), and renders an error it ends with.
func runWithKey(c *fiber.Ctx, key *store.IdemKey) error {
	c.Context().SetUserValue(store.IdempotencyContextKey, key)
	defer c.Context().RemoveUserValue(store.IdempotencyContextKey)
	return renderError(c, c.Next())
}

// claimsInWrite reports whether the request's key is claimed by its first write transaction
// (store.IdemKey InWrite) instead of a statement of its own before it runs: for routes that
// change nothing before that transaction and write in it with the request's context — the
// writes of a sheet's records, the load a key is most often sent with. A retry that finds
// the key claimed is rolled back and answered from the key.
func claimsInWrite(c *fiber.Ctx) bool {
	if m := c.Method(); m != fiber.MethodPost && m != fiber.MethodPut {
		return false
	}
	parts := strings.Split(strings.Trim(c.Path(), "/"), "/")
	return len(parts) == 4 && parts[0] == "v1" && parts[1] == "sheets" && parts[3] == "records"
}

// claimInWrite runs a request whose key its write claims (claimsInWrite), then keeps its
// answer, unless the write kept it already (POST and PUT of records render their answer
// inside the write): under the key its write claimed, or — when it wrote nothing — under a
// key of its own unless another request's is there, which then answers instead.
func (m *idempotency) claimInWrite(c *fiber.Ctx, key *store.IdemKey) error {
	err := runWithKey(c, key)
	if key.Taken() {
		c.Response().ResetBody() // (its headers, CORS among them, stay)
		return m.answerTaken(c, key, nil)
	}
	if err != nil {
		return err
	}
	if key.Answered() {
		return nil // (its write kept the answer with the key: store.Tx.KeepAnswer)
	}
	status, ctype, body, keep := m.answer(c)
	if key.Claimed() {
		return m.db.FinishIdempotencyKey(c.Context(), key.ID, keep, status, ctype, body)
	}
	if !keep {
		return nil // wrote nothing and may be retried
	}
	kept, err := m.db.KeepFirstAnswer(c.Context(), key, status, ctype, body)
	if err != nil || kept {
		return err
	}
	own := append([]byte(nil), c.Response().Body()...)
	c.Response().ResetBody() // (its headers, CORS among them, stay)
	return m.answerTaken(c, key, &ownAnswer{status, ctype, own})
}

// ownAnswer is a request's answer, kept aside while its key is looked at.
type ownAnswer struct {
	status      int
	contentType string
	body        []byte
}

// answerTaken answers a request whose key another request held (claimInWrite) from that
// key's row. Should the row have gone meanwhile, the key is given up: the request's own
// answer, when it wrote nothing, stands; a rolled-back write asks for a retry.
func (m *idempotency) answerTaken(c *fiber.Ctx, key *store.IdemKey, own *ownAnswer) error {
	done, err := m.answerFromKey(c, key)
	if done || err != nil {
		return err
	}
	if err := m.db.FinishIdempotencyKey(c.Context(), key.ID, false, 0, "", nil); err != nil {
		return err
	}
	if own == nil {
		return errs.E(errs.Conflict, "Idempotency-Key", "A request with this Idempotency-Key was being carried out at the same moment; retry")
	}
	if own.contentType != "" {
		c.Set(fiber.HeaderContentType, own.contentType)
	}
	return c.Status(own.status).Send(own.body)
}

// answer is the request's answer as its key keeps it (sealed), and whether it is kept.
func (m *idempotency) answer(c *fiber.Ctx) (status int, contentType string, body []byte, keep bool) {
	resp := c.Response()
	status = resp.StatusCode()
	return status, string(resp.Header.ContentType()), m.sealer.Seal(resp.Body()), status < 500 && !resp.IsBodyStream()
}

// answerFromKey claims the key for a request about to run (false: it may), or answers the
// request from it: the first request's answer replayed, or why it cannot be.
func (m *idempotency) answerFromKey(c *fiber.Ctx, key *store.IdemKey) (bool, error) {
	claim, err := m.db.ClaimIdempotencyKey(c.Context(), key.ID, key.Fingerprint, m.process, key.Alive)
	if err != nil {
		return true, err
	}
	if claim.State != store.IdemNew {
		refuseUnread(c) // an upload answered from the key leaves its body unread
	}
	switch claim.State {
	case store.IdemDone:
		body, err := m.sealer.Open(claim.Body)
		if err != nil { // kept by an earlier version, unsealed, or under another master key
			return true, errs.E(errs.Conflict, "Idempotency-Key", "The request with this Idempotency-Key was carried out; its answer can no longer be replayed: read the resource to see its result")
		}
		c.Set("Idempotent-Replayed", "true")
		if claim.ContentType != "" {
			c.Set(fiber.HeaderContentType, claim.ContentType)
		}
		return true, c.Status(claim.Status).Send(body)
	case store.IdemInFlight:
		return true, errs.E(errs.Conflict, "Idempotency-Key", "A request with this Idempotency-Key is still being carried out (perhaps by another Sluice node); retry when it has finished")
	case store.IdemLost:
		return true, errs.E(errs.Conflict, "Idempotency-Key", "The request with this Idempotency-Key was carried out, but the server stopped before answering it; it was not carried out again: read the resource to see its result")
	case store.IdemMismatched:
		return true, errs.Invalidf("Idempotency-Key", "This Idempotency-Key was used within the last 24 hours for a different request (%s); use a new key for a new request", strings.Join(strings.SplitN(claim.Fingerprint, " ", 3)[:2], " "))
	}
	return false, nil
}
