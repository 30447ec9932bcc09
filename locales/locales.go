// Package locales embeds the go-i18n message files: one folder per language tag, each
// holding any number of *.toml files (one per area of the product, so that work on
// different pages does not touch the same file). An id lives in exactly one file.
package locales

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/BurntSushi/toml"
)

// FS holds <lang>/*.toml.
//
//go:embed */*.toml
var FS embed.FS

// Default is the language every other one is checked against.
const Default = "en"

// Languages are the language tags with a folder, the default first.
var Languages = func() []string {
	dirs, _ := fs.ReadDir(FS, ".")
	out := []string{Default}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != Default {
			out = append(out, d.Name())
		}
	}
	sort.Strings(out[1:])
	return out
}()

// Flatfile's language codes that are not BCP 47 tags, and the tags they stand for.
var bcp47 = map[string]string{"jp": "ja", "kr": "ko", "zh": "zh-Hans", "zh-hant": "zh-Hant", "zh-hant-HK": "zh-Hant-HK"}

// BCP47 is the language tag of a language code (a folder name): Flatfile's codes jp, kr,
// zh, zh-hant and zh-hant-HK become ja, ko, zh-Hans, zh-Hant and zh-Hant-HK.
func BCP47(code string) string {
	if t, ok := bcp47[code]; ok {
		return t
	}
	return code
}

// Names are the languages in their own words, for the language menu.
var Names = map[string]string{
	"en": "English", "de": "Deutsch", "fr": "Français", "id": "Bahasa Indonesia", "pt": "Português", "pt-BR": "Português (Brasil)",
	"es": "Español", "es-419": "Español (Latinoamérica)", "it": "Italiano", "jp": "日本語", "kr": "한국어", "tr": "Türkçe",
	"vi": "Tiếng Việt", "zh": "简体中文", "ms": "Bahasa Melayu", "nl": "Nederlands", "pl": "Polski", "sv": "Svenska", "th": "ไทย",
	"zh-hant": "繁體中文", "zh-hant-HK": "繁體中文（香港）",
}

// Files lists the message files of one language.
func Files(lang string) []string {
	names, _ := fs.Glob(FS, lang+"/*.toml")
	return names
}

// Tag is the file name go-i18n needs to read lang from: it takes the language from the
// part of the name before the format.
func Tag(lang, file string) string {
	return path.Base(file[:len(file)-len(".toml")]) + "." + BCP47(lang) + ".toml"
}

// Messages is the shipped wording of every message of a language, by id. A message with
// plural forms (a TOML table: one, few, many, other…) gives its "other" form.
func Messages(lang string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range Files(lang) {
		b, err := FS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		if err := toml.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for id, v := range m {
			switch v := v.(type) {
			case string:
				out[id] = v
			case map[string]any:
				other, ok := v["other"].(string)
				if !ok {
					return nil, fmt.Errorf("%s: %q has plural forms but no \"other\"", f, id)
				}
				out[id] = other
			default:
				return nil, fmt.Errorf("%s: %q is neither a text nor plural forms", f, id)
			}
		}
	}
	return out, nil
}
