package ui

import (
	"cmp"
	"context"

	"github.com/sluice/sluice/locales"
	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/views"
)

// reasonKeys are the locale keys of the mapping engine's reasons, by code.
var reasonKeys = map[string]string{
	mapping.ReasonHeaderEquals:     "map.reason.header_equals",
	mapping.ReasonHeaderNormalized: "map.reason.header_normalized",
	mapping.ReasonSameMeaning:      "map.reason.same_meaning",
	mapping.ReasonShare:            "map.reason.share",
	mapping.ReasonSpelled:          "map.reason.spelled",
	mapping.ReasonRelated:          "map.reason.related",
	mapping.ReasonDescription:      "map.reason.description",
	mapping.ReasonValuesLookLike:   "map.reason.values_look_like",
	mapping.ReasonValuesOnly:       "map.reason.values_only",
	mapping.ReasonHashNumbers:      "map.reason.hash_numbers",
	mapping.ReasonOptionsMatch:     "map.reason.options_match",
	mapping.ReasonHistoryMine:      "map.reason.history_mine",
	mapping.ReasonHistoryOthers:    "map.reason.history_others",
	mapping.ReasonAbbreviation:     "map.reason.abbreviation",
	mapping.ReasonSynonym:          "map.reason.synonym",
	mapping.ReasonLanguage:         "map.reason.language",
	mapping.ReasonCompound:         "map.reason.compound",
	mapping.ReasonCustomField:      "map.reason.custom_field",
}

// reasonArgKeys are the locale keys of the coded words reasons carry as args: which name of
// the field matched (what) and what the sample values look like (kind).
var reasonArgKeys = map[string]map[string]string{
	"what": {"key": "map.what.key", "label": "map.what.label", "alternative_name": "map.what.alternative_name"},
	"kind": {
		"text": "map.kind.text", "email": "map.kind.email", "url": "map.kind.url", "date": "map.kind.date",
		"number": "map.kind.number", "boolean": "map.kind.boolean", "phone": "map.kind.phone", "iban": "map.kind.iban",
		"currency": "map.kind.currency", "country": "map.kind.country", "hash_number": "map.kind.hash_number",
	},
}

// reasonTexts says the engine's reasons in the page's language: each code through its
// locale key, coded args through theirs, a language by its own name ("Deutsch"); a reason
// without a key keeps its English.
func reasonTexts(ctx context.Context, rs []mapping.Reason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		key, ok := reasonKeys[r.Code]
		if !ok {
			out = append(out, r.Text)
			continue
		}
		data := make(map[string]any, len(r.Args))
		for k, v := range r.Args {
			data[k] = v
			if id, ok := reasonArgKeys[k][v]; ok {
				data[k] = views.T(ctx, id)
			}
		}
		if l := r.Args["lang"]; l != "" {
			data["lang"] = cmp.Or(locales.Names[l], l)
		}
		out = append(out, views.Tf(ctx, key, data))
	}
	return out
}
