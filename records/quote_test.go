package records

import (
	"encoding/json"
	"testing"
)

// A row's cells share one buffer: each must still decode to its own text, and appending to
// one must not overwrite the next.
func TestQuoteRowSharesOneBuffer(t *testing.T) {
	row := []string{"a", "", `q"uote`, "Müller", "", "z"}
	out := QuoteRow(row)
	if len(out) != len(row) {
		t.Fatalf("got %d values for %d cells", len(out), len(row))
	}
	_ = append(out[0], 'X')
	for i, s := range row {
		if s == "" {
			if string(out[i]) != "null" {
				t.Errorf("cell %d: got %s, want null", i, out[i])
			}
			continue
		}
		var got string
		if err := json.Unmarshal(out[i], &got); err != nil || got != s {
			t.Errorf("cell %d: %s decodes to %q (%v), want %q", i, out[i], got, err, s)
		}
	}
}
