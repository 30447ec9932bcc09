// Package locales embeds the go-i18n message files, one per language.
package locales

import "embed"

// FS holds the *.toml message files.
//
//go:embed *.toml
var FS embed.FS

// Languages are the language tags with a message file, the default first.
var Languages = []string{"en", "de"}
