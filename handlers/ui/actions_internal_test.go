package ui

import (
	"context"
	"encoding/json"
	"testing"
)

// An outcome's next never sends the user to another site as if it were Sluice's own page.
func TestOutcomeNextStaysLocal(t *testing.T) {
	for _, tt := range []struct {
		next     string
		url      string
		external bool
	}{
		{`{"type":"id","id":"us_sh_1","path":"//evil.example/phish"}`, "/space/us_sp_1/sheet/us_sh_1", false},
		{`{"type":"id","id":"us_sh_1","path":"/\\evil.example"}`, "/space/us_sp_1/sheet/us_sh_1", false},
		{`{"type":"id","id":"us_sh_1","path":"/space/us_sp_1/files"}`, "/space/us_sp_1/files", false},
		{`{"type":"url","url":"//evil.example"}`, "", false},
		{`{"type":"url","url":"https://docs.example/x"}`, "https://docs.example/x", true},
		{`{"type":"url","url":"javascript:alert(1)"}`, "", false},
	} {
		n := outcomeNext(context.Background(), "us_sp_1", json.RawMessage(tt.next))
		got, ext := "", false
		if n != nil {
			got, ext = n.URL, n.External
		}
		if got != tt.url || ext != tt.external {
			t.Errorf("%s: got %q (external %v), want %q (external %v)", tt.next, got, ext, tt.url, tt.external)
		}
	}
}
