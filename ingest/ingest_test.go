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
