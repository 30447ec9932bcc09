package ui

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/locales"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// Translation overrides: an environment may replace any UI message in any language with its
// own wording, kept in its metadata.translations as {language: {message id: text}} and
// applied on the pages of its spaces.

// maxOverride is the longest wording an override may have.
const maxOverride = 500

// TranslationOverrides reads an environment's overrides for one language.
func TranslationOverrides(envMetadata json.RawMessage, lang string) map[string]string {
	var meta struct {
		Translations map[string]map[string]string `json:"translations"`
	}
	if len(envMetadata) == 0 || json.Unmarshal(envMetadata, &meta) != nil {
		return nil
	}
	return meta.Translations[lang]
}

// messages reads the shipped wording of every message of a language.
func messages(lang string) map[string]string {
	out, _ := locales.Messages(lang) // the embedded files are checked by TestLocalesAreComplete
	return out
}

// Translations handles GET /admin/translations?lang=: every message with the shipped wording
// and the environment's override.
func (h *Admin) Translations(c *fiber.Ctx) error {
	_, sh, env, err := h.page(c, "translations")
	if err != nil {
		return err
	}
	lang := c.Query("lang", locales.Default)
	if !slices.Contains(locales.Languages, lang) {
		lang = locales.Default
	}
	shipped, overrides := messages(lang), TranslationOverrides(env.Metadata, lang)
	p := views.AdminTranslationsProps{Shell: sh, Lang: lang, Saved: c.Query("saved") == "1"}
	for _, l := range locales.Languages {
		p.Languages = append(p.Languages, views.AdminOption{Value: l, Label: locales.Names[l]})
	}
	ids := make([]string, 0, len(shipped))
	for id := range shipped {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	filter := strings.ToLower(c.Query("q"))
	for _, id := range ids {
		if filter != "" && !strings.Contains(strings.ToLower(id+" "+shipped[id]+" "+overrides[id]), filter) {
			continue
		}
		p.Rows = append(p.Rows, views.AdminTranslation{ID: id, Shipped: shipped[id], Override: overrides[id]})
	}
	p.Query = c.Query("q")
	return Render(c, fiber.StatusOK, views.AdminTranslationsPage(p))
}

// SaveTranslations handles POST /admin/translations (lang, and o:<id> per message): empty
// fields fall back to the shipped wording.
func (h *Admin) SaveTranslations(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "translations")
	if err != nil {
		return err
	}
	lang := c.FormValue("lang")
	if !slices.Contains(locales.Languages, lang) {
		return errs.Invalidf("lang", "Unknown language %q", lang)
	}
	shipped := messages(lang)
	meta := map[string]any{}
	_ = json.Unmarshal(env.Metadata, &meta)
	all := map[string]any{}
	if t, ok := meta["translations"].(map[string]any); ok {
		all = t
	}
	current := TranslationOverrides(env.Metadata, lang)
	if current == nil {
		current = map[string]string{}
	}
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		id, ok := strings.CutPrefix(string(k), "o:")
		if !ok {
			return
		}
		if _, known := shipped[id]; !known {
			return
		}
		text := strings.TrimSpace(string(v))
		if text == "" || text == shipped[id] {
			delete(current, id)
		} else {
			current[id] = text
		}
	})
	for id, text := range current {
		if len(text) > maxOverride {
			return errs.Invalidf("o:"+id, "The wording for %s is longer than %d characters", id, maxOverride)
		}
	}
	all[lang] = current
	meta["translations"] = all
	raw, _ := json.Marshal(meta)
	if _, err := h.store.UpdateEnvironment(c.Context(), u.AccountID, env.ID, store.EnvironmentUpdate{Metadata: raw}, u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/translations?env="+env.ID+"&lang="+lang+"&saved=1")
}
