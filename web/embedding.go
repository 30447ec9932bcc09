package web

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/time/rate"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/store"
)

// allowlist answers from the accounts' embedding allowlists (embeddedDomainWhitelist), read
// from the database on each use so a change applies to the next request.
type allowlist struct{ db *store.DB }

func (a allowlist) origins(ctx context.Context) []string {
	if a.db == nil {
		return nil
	}
	list, err := a.db.EmbeddedOrigins(ctx)
	if err != nil {
		return nil
	}
	return list
}

func (a allowlist) has(ctx context.Context, origin string) bool {
	return slices.Contains(a.origins(ctx), strings.ToLower(origin))
}

// corsHeaderAllowed tells the request headers a listed origin may send: what @flatfile/api
// and the browser SDKs send (a record hook writes its records back gzipped).
func corsHeaderAllowed(h string) bool {
	h = strings.ToLower(strings.TrimSpace(h))
	switch h {
	case "authorization", "content-type", "content-encoding", "accept", "x-disable-hooks", "x-force-hooks", "x-request-id":
		return true
	}
	return strings.HasPrefix(h, "x-fern-")
}

// cors lets the pages of listed origins call the API from a browser: preflights are
// answered before any token check, and answers carry Access-Control-Allow-Origin for a listed
// origin only. An origin not on the list gets no CORS header (its preflight a 403), so the
// browser keeps the answer from it. No cookies are involved: the API takes bearer tokens.
func cors(list allowlist) fiber.Handler {
	return func(c *fiber.Ctx) error {
		origin := c.Get(fiber.HeaderOrigin)
		if origin == "" {
			return c.Next()
		}
		preflight := c.Method() == fiber.MethodOptions && c.Get(fiber.HeaderAccessControlRequestMethod) != ""
		c.Vary(fiber.HeaderOrigin)
		if !list.has(c.Context(), origin) {
			if preflight {
				return errs.E(errs.Forbidden, "Origin", "%s is not on the account's embedding allowlist (embeddedDomainWhitelist)", origin)
			}
			return c.Next()
		}
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Set(fiber.HeaderAccessControlExposeHeaders, "X-Request-Id, Retry-After")
		if !preflight {
			return c.Next()
		}
		var allowed []string
		for _, h := range strings.Split(c.Get(fiber.HeaderAccessControlRequestHeaders), ",") {
			if h = strings.TrimSpace(h); h != "" && corsHeaderAllowed(h) {
				allowed = append(allowed, h)
			}
		}
		c.Set(fiber.HeaderAccessControlAllowMethods, "GET, POST, PUT, PATCH, DELETE")
		c.Set(fiber.HeaderAccessControlAllowHeaders, strings.Join(allowed, ", "))
		c.Set(fiber.HeaderAccessControlMaxAge, "600")
		return c.SendStatus(fiber.StatusNoContent)
	}
}

// originGate refuses on the server, not only by withholding CORS headers, a browser request
// from a site that is not on the embedding allowlist when it comes with the publishable key
// (the space init, or a call made with the key): such a request can be a CORS "simple request"
// whose side effect (a new space) happens even though the browser hides the answer. Requests
// without an Origin (server-side integrations) and from Sluice's own pages pass. The refusal
// carries Access-Control-Allow-Origin so the embedding page can read and show why.
func originGate(list allowlist, baseURL string) fiber.Handler {
	own := strings.TrimRight(baseURL, "/")
	return func(c *fiber.Ctx) error {
		origin := c.Get(fiber.HeaderOrigin)
		if origin == "" || strings.EqualFold(origin, own) || strings.EqualFold(origin, c.BaseURL()) || list.has(c.Context(), origin) {
			return c.Next()
		}
		if p := api.PrincipalOf(c); p != nil && p.Kind != auth.PublishableKey {
			return c.Next()
		}
		c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
		c.Vary(fiber.HeaderOrigin)
		return errs.E(errs.Forbidden, "Origin", "This origin (%s) is not allowed to embed Sluice: add it under Admin → Environment → Embedding", origin)
	}
}

// InitBodyLimit is the largest space init body: a space with its workbook and document, far
// less than the API's 10 MiB, since anyone holding the public key may send it.
const InitBodyLimit = 1 << 20

// initThrottle limits how many spaces one client address may make through the public space
// init: InitsPerMinute a minute (with as many at once), so a script holding the publishable
// key cannot fill the disk. Per node; each node keeps its own count.
type initThrottle struct {
	mu      sync.Mutex
	clients map[string]*initClient
	perMin  int
	now     func() time.Time
}

type initClient struct {
	lim  *rate.Limiter
	seen time.Time
}

// InitsPerMinute is how many spaces one address may make through the init a minute.
const InitsPerMinute = 20

func newInitThrottle(perMin int) *initThrottle {
	return &initThrottle{clients: map[string]*initClient{}, perMin: perMin, now: time.Now}
}

func (t *initThrottle) handler(c *fiber.Ctx) error {
	now := t.now()
	t.mu.Lock()
	cl := t.clients[c.IP()]
	if cl == nil {
		if len(t.clients) > 100_000 {
			for ip, old := range t.clients {
				if now.Sub(old.seen) > 10*time.Minute {
					delete(t.clients, ip)
				}
			}
		}
		cl = &initClient{lim: rate.NewLimiter(rate.Limit(float64(t.perMin)/60), t.perMin)}
		t.clients[c.IP()] = cl
	}
	cl.seen = now
	r := cl.lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	if wait > 0 {
		r.CancelAt(now)
	}
	t.mu.Unlock()
	if wait > 0 {
		secs := int(wait/time.Second) + 1
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		return errs.E(errs.TooMany, "publishableKey", "Too many importers opened from this address; try again in %d seconds", secs)
	}
	return readBody(c, InitBodyLimit)
}
