package formats

import (
	"strings"
	"time"

	"github.com/go-playground/locales"
	"github.com/go-playground/locales/de"
	"github.com/go-playground/locales/en"
	"github.com/go-playground/locales/es"
	"github.com/go-playground/locales/es_419"
	"github.com/go-playground/locales/fr"
	"github.com/go-playground/locales/id"
	"github.com/go-playground/locales/it"
	"github.com/go-playground/locales/ja"
	"github.com/go-playground/locales/ko"
	"github.com/go-playground/locales/ms"
	"github.com/go-playground/locales/nl"
	"github.com/go-playground/locales/pl"
	"github.com/go-playground/locales/pt"
	"github.com/go-playground/locales/pt_BR"
	"github.com/go-playground/locales/sv"
	"github.com/go-playground/locales/th"
	"github.com/go-playground/locales/tr"
	"github.com/go-playground/locales/vi"
	"github.com/go-playground/locales/zh"
	"github.com/go-playground/locales/zh_Hant"
	"github.com/go-playground/locales/zh_Hant_HK"
)

// displayLocales are CLDR's date patterns (through go-playground/locales, generated from
// CLDR) for the UI's languages, by the codes of locales/.
var displayLocales = map[string]locales.Translator{
	"en": en.New(), "de": de.New(), "es": es.New(), "es-419": es_419.New(), "fr": fr.New(),
	"id": id.New(), "it": it.New(), "jp": ja.New(), "kr": ko.New(), "ms": ms.New(),
	"nl": nl.New(), "pl": pl.New(), "pt": pt.New(), "pt-BR": pt_BR.New(), "sv": sv.New(),
	"th": th.New(), "tr": tr.New(), "vi": vi.New(), "zh": zh.New(), "zh-hant": zh_Hant.New(),
	"zh-hant-HK": zh_Hant_HK.New(),
}

// Display shows a stored ISO date (YYYY-MM-DD) or date-time (RFC 3339) the way the language
// writes dates, in CLDR's medium form, which names or orders the parts so that no reader can
// take the day for the month ("Aug 23, 1984", "23.08.1984", "1984/08/23"). ok is false for
// anything else, which is then shown as stored.
func Display(lang, stored string) (string, bool) {
	tr, known := displayLocales[lang]
	if !known {
		tr = displayLocales["en"]
	}
	if len(stored) == 10 {
		t, err := time.Parse(time.DateOnly, stored)
		if err != nil {
			return "", false
		}
		return tr.FmtDateMedium(t), true
	}
	if len(stored) < 16 || stored[10] != 'T' {
		return "", false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, stored); err == nil {
			s := tr.FmtDateMedium(t) + " " + tr.FmtTimeShort(t)
			if layout == time.RFC3339Nano && !strings.HasSuffix(stored, "Z") {
				s += " " + t.Format("-07:00")
			} else if layout == time.RFC3339Nano {
				s += " UTC"
			}
			return s, true
		}
	}
	return "", false
}
