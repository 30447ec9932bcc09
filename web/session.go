package web

import (
	"crypto/sha256"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"

	"github.com/sluice/sluice/handlers/ui"
)

const (
	sessionCookie = "sluice_session"
	sessionTTL    = 24 * time.Hour
)

// cookieSessions keeps the dashboard session in a signed, encrypted cookie through
// gorilla/sessions' codecs. The login time is stored inside, so a session older than 24 hours
// is refused by the server even if a browser keeps the cookie.
type cookieSessions struct {
	store  *sessions.CookieStore
	secure bool
	now    func() time.Time
}

func newCookieSessions(secret []byte, baseURL string, now func() time.Time) *cookieSessions {
	hash := sha256.Sum256(append([]byte("sluice-session-hash:"), secret...))
	block := sha256.Sum256(append([]byte("sluice-session-block:"), secret...))
	st := sessions.NewCookieStore(hash[:], block[:])
	st.MaxAge(int(sessionTTL.Seconds()))
	return &cookieSessions{store: st, secure: strings.HasPrefix(baseURL, "https://"), now: now}
}

// Start writes a new session for u.
func (s *cookieSessions) Start(c *fiber.Ctx, u ui.SessionUser) error {
	vals := map[any]any{"uid": u.UserID, "acc": u.AccountID, "eml": u.Email, "gsp": u.GuestSpace, "at": s.now().Unix()}
	enc, err := securecookie.EncodeMulti(sessionCookie, vals, s.store.Codecs...)
	if err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: enc, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		Expires: s.now().Add(sessionTTL), HTTPOnly: true, Secure: s.secure, SameSite: fiber.CookieSameSiteLaxMode})
	return nil
}

// End clears the session.
func (s *cookieSessions) End(c *fiber.Ctx) {
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(0, 0), HTTPOnly: true,
		Secure: s.secure, SameSite: fiber.CookieSameSiteLaxMode})
}

// User reads the session; ok is false when there is none, it does not verify, or it is older
// than 24 hours.
func (s *cookieSessions) User(c *fiber.Ctx) (ui.SessionUser, bool) {
	raw := c.Cookies(sessionCookie)
	if raw == "" {
		return ui.SessionUser{}, false
	}
	vals := map[any]any{}
	if err := securecookie.DecodeMulti(sessionCookie, raw, &vals, s.store.Codecs...); err != nil {
		return ui.SessionUser{}, false
	}
	at, _ := vals["at"].(int64)
	if at == 0 || s.now().Sub(time.Unix(at, 0)) >= sessionTTL {
		return ui.SessionUser{}, false
	}
	u := ui.SessionUser{Since: time.Unix(at, 0)}
	u.UserID, _ = vals["uid"].(string)
	u.AccountID, _ = vals["acc"].(string)
	u.Email, _ = vals["eml"].(string)
	u.GuestSpace, _ = vals["gsp"].(string)
	return u, u.UserID != ""
}
