package ui

import (
	"context"
	"regexp"

	"github.com/sluice/sluice/views"
)

// Sluice's own validation messages are English in the API (records and the store write
// them); pages say them in the page's language. A message a sheet's constraint or an agent
// wrote is shown as written.
var builtinMessages = map[string]string{
	"Field is required":                                     "msg.required",
	"Value must be unique":                                  "msg.unique",
	"Value must be a number":                                "msg.number",
	"Value must be true or false":                           "msg.boolean",
	"Value is not one of the allowed options":               "msg.option",
	"Value must be a date (for example 2024-01-31)":         "msg.date",
	"Value must be a list":                                  "msg.list",
	"List items must be single values":                      "msg.list_items",
	"Value must be a single value, not a list or object":    "msg.single",
	"Value must be true or false (yes/no)":                  "msg.boolean",
	"Expected a date as day/month/year, e.g. 23/08/1984":    "msg.date_dmy",
	"Expected a date as month/day/year, e.g. 08/23/1984":    "msg.date_mdy",
	"Expected an Excel date serial number, e.g. 30917":      "msg.date_serial",
	"Expected a number with a decimal comma, e.g. 1.234,56": "msg.number_comma",
	"Expected a number with a decimal point, e.g. 1,234.56": "msg.number_point",
	"Expected a date such as 1984-08-23; 05/08/1963 could be 5 August or 8 May: write it as YYYY-MM-DD or set the field's date format": "msg.date_iso",
}

// builtinPatterns are the built-in messages that name a value or fields.
var builtinPatterns = []struct {
	re *regexp.Regexp
	id string
}{
	{regexp.MustCompile(`^Value (.+) could be day/month or month/day: write it as YYYY-MM-DD or set the field's config\.format\.dateFormat$`), "msg.date_ambiguous"},
	{regexp.MustCompile(`^Value (.+) could be read with a decimal point or a decimal comma: set the field's config\.format\.decimalSeparator$`), "msg.decimal_ambiguous"},
	{regexp.MustCompile(`^Combination of (.+) must be unique$`), "msg.combination"},
	{regexp.MustCompile(`^No record of (.+) has (.+) "(.*)"$`), "msg.unlinked"},
}

// localMessage says a validation message in the page's language when it is one of Sluice's.
func localMessage(ctx context.Context, msg string) string {
	if id, ok := builtinMessages[msg]; ok {
		return views.T(ctx, id)
	}
	for _, p := range builtinPatterns {
		if m := p.re.FindStringSubmatch(msg); m != nil {
			data := map[string]any{"A": m[1]}
			if len(m) > 3 {
				data["B"], data["C"] = m[2], m[3]
			}
			return views.Tf(ctx, p.id, data)
		}
	}
	return msg
}
