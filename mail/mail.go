// Package mail renders Sluice's e-mail (invitations, guest links) with gofiber/template's
// html engine from templates embedded in the binary, in a space's theme.email, and sends it
// through SMTP when configured; every mail is kept in the outbox first, so none is lost and
// the admin can read what went out (or why it did not).
package mail

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/smtp"
	"regexp"
	"strings"

	"github.com/gofiber/template/html/v2"

	"github.com/sluice/sluice/store"
)

//go:embed templates/*.html
var templates embed.FS

// Theme is theme.email: the colors and logo of a space's mail.
type Theme struct {
	Logo, TextColor, TitleColor, ButtonBgColor, BackgroundColor, ButtonTextColor, FooterTextColor string
}

// Default is the look without a theme.
var Default = Theme{TextColor: "#1f2937", TitleColor: "#111827", ButtonBgColor: "#2563eb", BackgroundColor: "#f3f4f6", ButtonTextColor: "#ffffff", FooterTextColor: "#6b7280"}

var (
	color = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\([0-9., %]+\))$`)
	logo  = regexp.MustCompile(`^https://[^\s"'<>]{1,500}$`)
)

// ThemeOf reads theme.email from a space's metadata; values that are not plainly a color
// (or an https logo URL) keep the default. enabled false (the environment's
// metadata.emailTheming, a plan-gated feature) gives the default look.
func ThemeOf(spaceMetadata json.RawMessage, enabled bool) Theme {
	t := Default
	if !enabled || len(spaceMetadata) == 0 {
		return t
	}
	var meta struct {
		Theme struct {
			Email map[string]string `json:"email"`
		} `json:"theme"`
	}
	if json.Unmarshal(spaceMetadata, &meta) != nil {
		return t
	}
	e := meta.Theme.Email
	for key, dst := range map[string]*string{"textColor": &t.TextColor, "titleColor": &t.TitleColor, "buttonBgColor": &t.ButtonBgColor,
		"backgroundColor": &t.BackgroundColor, "buttonTextColor": &t.ButtonTextColor, "footerTextColor": &t.FooterTextColor} {
		if v := strings.TrimSpace(e[key]); color.MatchString(v) {
			*dst = v
		}
	}
	if v := strings.TrimSpace(e["logo"]); logo.MatchString(v) {
		t.Logo = v
	}
	return t
}

// SMTP is where mail goes; an empty Host keeps it in the outbox only.
type SMTP struct {
	Host, Port, User, Password, From string
}

// Outbox is where mail is kept.
type Outbox interface {
	QueueMail(ctx context.Context, m *store.Mail) error
	MarkMail(ctx context.Context, id string, sendErr error) error
}

// Sender renders and sends mail.
type Sender struct {
	engine *html.Engine
	smtp   SMTP
	outbox Outbox
	send   func(addr string, a smtp.Auth, from string, to []string, msg []byte) error
}

// New returns a sender with the embedded templates loaded.
func New(o Outbox, s SMTP) (*Sender, error) {
	sub, err := fs.Sub(templates, "templates")
	if err != nil {
		return nil, err
	}
	e := html.NewFileSystem(http.FS(sub), ".html")
	if err := e.Load(); err != nil {
		return nil, fmt.Errorf("mail templates: %w", err)
	}
	return &Sender{engine: e, smtp: s, outbox: o, send: smtp.SendMail}, nil
}

// Invitation is what an invitation mail says.
type Invitation struct {
	AccountID, To, Subject, Title, Body, Button, Footer, Link string
	Theme                                                     Theme
}

// Send renders an invitation, keeps it in the outbox and sends it when SMTP is configured;
// a failed send is recorded on the mail and returned.
func (s *Sender) Send(ctx context.Context, inv Invitation) (*store.Mail, error) {
	var buf bytes.Buffer
	if err := s.engine.Render(&buf, "invite", inv); err != nil {
		return nil, fmt.Errorf("render mail: %w", err)
	}
	m := &store.Mail{AccountID: inv.AccountID, To: inv.To, Subject: inv.Subject, HTML: buf.String(), Text: inv.Body + "\n\n" + inv.Link}
	if err := s.outbox.QueueMail(ctx, m); err != nil {
		return nil, err
	}
	if s.smtp.Host == "" {
		return m, nil
	}
	var auth smtp.Auth
	if s.smtp.User != "" {
		auth = smtp.PlainAuth("", s.smtp.User, s.smtp.Password, s.smtp.Host)
	}
	msg := "From: " + s.smtp.From + "\r\nTo: " + inv.To + "\r\nSubject: " + strings.ReplaceAll(inv.Subject, "\n", " ") +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + m.HTML
	port := s.smtp.Port
	if port == "" {
		port = "587"
	}
	sendErr := s.send(s.smtp.Host+":"+port, auth, s.smtp.From, []string{inv.To}, []byte(msg))
	if err := s.outbox.MarkMail(ctx, m.ID, sendErr); err != nil {
		return m, err
	}
	return m, sendErr
}
