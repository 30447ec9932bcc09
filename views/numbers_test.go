package views

import (
	"context"
	"testing"
)

func TestNumbersInThePageLanguage(t *testing.T) {
	for _, c := range []struct{ lang, raw, want string }{
		{"en", "12000", "12,000"}, {"de", "12000", "12.000"}, {"de", "1234.5", "1.234,5"}, {"fr", "1234.25", "1\u00a0234,25"},
		{"en", "0.10", "0.10"}, {"de", "-3", "-3"}, {"en", "1e21", "1e21"}, {"en", "abc", "abc"},
	} {
		ctx := context.WithValue(context.Background(), KeyLang, c.lang)
		if got := Decimal(ctx, c.raw); got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.lang, c.raw, got, c.want)
		}
	}
	if got := Count(context.WithValue(context.Background(), KeyLang, "de"), 1234567); got != "1.234.567" {
		t.Errorf("count: %q", got)
	}
}
