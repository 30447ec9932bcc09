package ui

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/locales"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/views"
)

// german is a context whose pages speak German.
func german(t *testing.T) context.Context {
	t.Helper()
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, l := range []string{"en", "de"} {
		for _, f := range locales.Files(l) {
			buf, err := locales.FS.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.ParseMessageFileBytes(buf, locales.Tag(l, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return context.WithValue(context.Background(), views.KeyLocalizer, i18n.NewLocalizer(b, "de"))
}

// The messages the record checks write are the ones pages translate: a message the
// records package changes would otherwise stay English on every page.
func TestBuiltinMessagesAreTranslated(t *testing.T) {
	ctx := german(t)
	one := 1
	cfg := model.SheetConfig{Name: "S", Fields: []model.Field{
		{Key: "req", Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}},
		{Key: "n", Type: "number"}, {Key: "b", Type: "boolean"}, {Key: "d", Type: "date"},
		{Key: "e", Type: "enum", Config: &model.FieldConfig{Options: []model.EnumOption{{Value: json.RawMessage(`"a"`), Ordinal: &one}}}},
	}}
	s, err := records.Compile(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	row := records.Row{nil, json.RawMessage(`"abc"`), json.RawMessage(`"maybe"`), json.RawMessage(`"soon"`), json.RawMessage(`"z"`)}
	cells := s.Check(row)
	for i, msgs := range cells {
		if len(msgs) == 0 {
			t.Errorf("field %s: no message", s.Rules[i].Key)
		}
		for _, m := range msgs {
			if got := localMessage(ctx, m.Message); got == m.Message {
				t.Errorf("field %s: %q stays English on a German page", s.Rules[i].Key, m.Message)
			}
		}
	}
	for _, typ := range []string{"date", "number", "boolean"} {
		for _, f := range []string{"", formats.DMY, formats.MDY, "serial", formats.Comma, formats.Point} {
			if msg := formats.Expected(typ, f); msg != "" && localMessage(ctx, msg) == msg {
				t.Errorf("%q stays English on a German page", msg)
			}
		}
	}
	for msg, want := range map[string]string{
		"Field is required":                         "Pflichtfeld",
		"Combination of first, last must be unique": "Die Kombination aus first, last muss eindeutig sein",
		`No record of companies has name "Acme"`:    "Kein Datensatz in companies hat name „Acme“",
		"A message an agent wrote":                  "A message an agent wrote",
	} {
		if got := localMessage(ctx, msg); got != want {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}
