package web

import (
	"crypto/sha256"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"

	"github.com/sluice/sluice/handlers/ui"
	"github.com/sluice/sluice/store"
)

const (
	sessionCookie = "sluice_session"
	sessionTTL    = 24 * time.Hour
)

// serverSessions keeps dashboard sessions in the database: the cookie carries only the
// session's id, signed and encrypted with gorilla/sessions' cookie codecs, and the row is the
// truth. So
// logging out ends a session everywhere (a copied cookie stops working), and deleting a user
// or changing a password ends theirs; a session older than 24 hours is refused whatever the
// browser keeps.
type serverSessions struct {
	db     *store.DB
	codecs []securecookie.Codec
	secure bool
	now    func() time.Time
}

func newServerSessions(db *store.DB, secret []byte, baseURL string) *serverSessions {
	hash := sha256.Sum256(append([]byte("sluice-session-hash:"), secret...))
	block := sha256.Sum256(append([]byte("sluice-session-block:"), secret...))
	st := sessions.NewCookieStore(hash[:], block[:])
	st.MaxAge(int(sessionTTL.Seconds()))
	return &serverSessions{db: db, codecs: st.Codecs, secure: strings.HasPrefix(baseURL, "https://"), now: db.Now}
}

// Start ends the browser's previous session, stores a new one for u and sets its cookie. The
// CSRF token is replaced too, so a token planted before the login is worthless after it.
func (s *serverSessions) Start(c *fiber.Ctx, u ui.SessionUser) error {
	if id, ok := s.id(c); ok {
		_ = s.db.EndSession(c.Context(), id)
	}
	id, err := s.db.StartSession(c.Context(), &store.Session{UserID: u.UserID, AccountID: u.AccountID, Email: u.Email,
		EnvironmentID: u.EnvironmentID, GuestSpace: u.GuestSpace, ClientAddr: c.IP()})
	if err != nil {
		return err
	}
	enc, err := securecookie.EncodeMulti(sessionCookie, id, s.codecs...)
	if err != nil {
		return err
	}
	if h, ok := c.Locals("fiber.csrf.handler").(*csrf.CSRFHandler); ok && c.Cookies("sluice_csrf") != "" {
		_ = h.DeleteToken(c)
	}
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: enc, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		Expires: s.now().Add(sessionTTL), HTTPOnly: true, Secure: s.secure, SameSite: fiber.CookieSameSiteLaxMode})
	return nil
}

// End ends the session on the server and clears the cookie.
func (s *serverSessions) End(c *fiber.Ctx) {
	if id, ok := s.id(c); ok {
		_ = s.db.EndSession(c.Context(), id)
	}
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(0, 0), HTTPOnly: true,
		Secure: s.secure, SameSite: fiber.CookieSameSiteLaxMode})
}

// id reads the session id from the cookie.
func (s *serverSessions) id(c *fiber.Ctx) (string, bool) {
	raw := c.Cookies(sessionCookie)
	if raw == "" {
		return "", false
	}
	var id string
	if err := securecookie.DecodeMulti(sessionCookie, raw, &id, s.codecs...); err != nil || id == "" {
		return "", false
	}
	return id, true
}

// User reads the session; ok is false when there is none, it was ended, its user is gone, or
// it is older than 24 hours.
func (s *serverSessions) User(c *fiber.Ctx) (ui.SessionUser, bool) {
	id, ok := s.id(c)
	if !ok {
		return ui.SessionUser{}, false
	}
	row, err := s.db.SessionByID(c.Context(), id, sessionTTL)
	if err != nil {
		return ui.SessionUser{}, false
	}
	return ui.SessionUser{UserID: row.UserID, AccountID: row.AccountID, Email: row.Email, EnvironmentID: row.EnvironmentID,
		GuestSpace: row.GuestSpace, Since: row.CreatedAt}, true
}
