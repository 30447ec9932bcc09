// Package locales embeds the go-i18n message files: one folder per language tag, each
// holding any number of *.toml files (one per area of the product, so that work on
// different pages does not touch the same file). An id lives in exactly one file.
package locales

import (
	"embed"
	"io/fs"
	"path"
	"sort"
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

// Files lists the message files of one language.
func Files(lang string) []string {
	names, _ := fs.Glob(FS, lang+"/*.toml")
	return names
}

// Tag is the file name go-i18n needs to read lang from: it takes the language from the
// part of the name before the format.
func Tag(lang, file string) string {
	return path.Base(file[:len(file)-len(".toml")]) + "." + lang + ".toml"
}
