// Package views holds the templ components of Sluice's pages. Components take typed props and
// read request values (localizer, CSRF token, user, language) from the context through the
// helpers below; they do no I/O.
package views

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/nicksnyder/go-i18n/v2/i18n"
)

// Context keys. They are strings because fiber stores request locals as fasthttp user
// values, which the request context hands back for string keys.
const (
	KeyLocalizer = "sluice.localizer"
	KeyCSRF      = "sluice.csrf"
	KeyUser      = "sluice.userEmail"
	KeyLang      = "sluice.lang"
	KeyTheme     = "sluice.themeCSS"   // the space's theme as a :root rule (theme.CSS), already checked
	KeyAdmin     = "sluice.admin"      // "1" for account users (not guests): the admin pages are theirs
	KeyOverrides = "sluice.overrides"  // the environment's translation overrides for the page's language
	KeyEmbed     = "sluice.embedToken" // the token a framed page was opened with: every request of the page carries it
	KeyBrand     = "sluice.brand"      // a space's white label (BrandProps)
)

// override is an environment's own wording for a message id, if it has one.
func override(ctx context.Context, id string) (string, bool) {
	o, _ := ctx.Value(KeyOverrides).(map[string]string)
	s, ok := o[id]
	return s, ok && s != ""
}

// T translates a message id; a missing id shows the id itself so it is noticed.
func T(ctx context.Context, id string) string {
	if s, ok := override(ctx, id); ok {
		return s
	}
	loc, _ := ctx.Value(KeyLocalizer).(*i18n.Localizer)
	if loc == nil {
		return id
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{MessageID: id})
	if err != nil {
		return id
	}
	return s
}

// Tf translates a message id with template data ({{.Name}} in the message).
func Tf(ctx context.Context, id string, data map[string]any) string {
	if s, ok := override(ctx, id); ok {
		for k, v := range data {
			s = strings.ReplaceAll(s, "{{."+k+"}}", fmt.Sprint(v))
		}
		return s
	}
	loc, _ := ctx.Value(KeyLocalizer).(*i18n.Localizer)
	if loc == nil {
		return id
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil {
		return id
	}
	return s
}

// Tn translates a message with plural forms for the count n, shown as count ("" shows n;
// "10,000+" may stand for n = 10000). A language's missing form falls back to "other".
func Tn(ctx context.Context, id string, n int64, count string) string {
	if count == "" {
		count = strconv.FormatInt(n, 10)
	}
	data := map[string]any{"Count": count}
	if s, ok := override(ctx, id); ok {
		return strings.ReplaceAll(s, "{{.Count}}", count)
	}
	loc, _ := ctx.Value(KeyLocalizer).(*i18n.Localizer)
	if loc == nil {
		return id
	}
	s, err := loc.Localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: n, TemplateData: data})
	if err != nil {
		if s, err = loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data}); err != nil {
			return id
		}
	}
	return s
}

func str(ctx context.Context, key string) string {
	s, _ := ctx.Value(key).(string)
	return s
}

// Theme is the page's theme rule, "" outside a themed space.
func Theme(ctx context.Context) string { return str(ctx, KeyTheme) }

// IsAdmin reports whether the signed-in person may open the admin pages.
func IsAdmin(ctx context.Context) bool { return str(ctx, KeyAdmin) == "1" }

// CSRF is the request's CSRF token.
func CSRF(ctx context.Context) string { return str(ctx, KeyCSRF) }

// UserEmail is the logged-in user's e-mail, empty on public pages.
func UserEmail(ctx context.Context) string { return str(ctx, KeyUser) }

// Lang is the page language.
func Lang(ctx context.Context) string {
	if l := str(ctx, KeyLang); l != "" {
		return l
	}
	return "en"
}

func csrfHeaders(ctx context.Context) string {
	h := map[string]string{"X-CSRF-Token": CSRF(ctx)}
	if t := EmbedToken(ctx); t != "" {
		h["X-Sluice-Token"] = t
	}
	b, _ := json.Marshal(h)
	return string(b)
}

// EmbedToken is the token of a page opened inside another site's frame ("" otherwise): such
// a page has no cookies, so its requests carry the token instead.
func EmbedToken(ctx context.Context) string { return str(ctx, KeyEmbed) }

// BrandProps is a space's white label: the host's title instead of Sluice's, and no logo
// (environment metadata whiteLabel {title, hideLogo}, a space's own metadata overriding it).
type BrandProps struct {
	Title    string
	HideLogo bool
}

// Brand is the white label of the page's space (zero: Sluice's own).
func Brand(ctx context.Context) BrandProps {
	b, _ := ctx.Value(KeyBrand).(BrandProps)
	return b
}
