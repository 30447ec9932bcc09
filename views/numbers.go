package views

import (
	"context"
	"strconv"
	"strings"

	"github.com/sluice/sluice/locales"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// printer formats numbers the way the page's language writes them (grouping and decimal
// mark: 12,000.5 in English, 12.000,5 in German, 12 000,5 in French).
func printer(ctx context.Context) *message.Printer {
	tag, err := language.Parse(locales.BCP47(Lang(ctx)))
	if err != nil {
		tag = language.English
	}
	return message.NewPrinter(tag)
}

// Count is a count in the page's language.
func Count(ctx context.Context, n int64) string {
	return printer(ctx).Sprint(number.Decimal(n))
}

// Decimal is a stored number (its JSON text) as the page's language writes it, with as many
// decimals as it has; text that is not a plain number comes back as it is.
func Decimal(ctx context.Context, raw string) string {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || strings.ContainsAny(raw, "eE") || len(raw) > 20 {
		return raw
	}
	decimals := 0
	if i := strings.IndexByte(raw, '.'); i >= 0 {
		decimals = len(raw) - i - 1
	}
	return printer(ctx).Sprint(number.Decimal(f, number.MinFractionDigits(decimals), number.MaxFractionDigits(decimals)))
}
