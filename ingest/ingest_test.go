package ingest

import (
	"encoding/json"
	"testing"
)

func TestJSONStringRoundTrips(t *testing.T) {
	for _, s := range []string{"plain", "Müller", `say "hi"`, `back\slash`, "two\nlines", "tab\there", "<b>&amp;</b>", "\u2028"} {
		var got string
		if err := json.Unmarshal(jsonString(s), &got); err != nil || got != s {
			t.Errorf("jsonString(%q) decodes to %q (%v), want the same text", s, got, err)
		}
	}
	if string(jsonString("")) != "null" {
		t.Errorf("empty cell: got %s, want null", jsonString(""))
	}
}

// CellText's shortcuts (a string without an escape, a number, a boolean) give what decoding
// the JSON gives.
func TestCellTextShortcuts(t *testing.T) {
	for _, v := range []string{`"plain"`, `""`, `"Müller 日本"`, `"q\"uote"`, `"back\\slash"`, `"\u00e9"`, `"tab\there"`,
		`42`, `-0.5`, `1e21`, `true`, `false`, `["a","b"]`, `[1,2.5,true]`, `[]`, `{"k":"v"}`} {
		if got, want := CellText(json.RawMessage(v)), decodedText(json.RawMessage(v)); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
	if CellText(nil) != "" || CellText(json.RawMessage("null")) != "" {
		t.Error("an empty cell's text is not empty")
	}
}
