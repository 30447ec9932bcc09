package web_test

import (
	"testing"

	"github.com/sluice/sluice/model"
)

func TestInterruptedExtractionsFailAtStart(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "f"})
	acc := dataOf(e.mustCall(t, "GET", "/v1/accounts/current", testSecret, nil))["id"].(string)
	for _, status := range []string{model.FileStatusAnalyzing, model.FileStatusPartial, model.FileStatusComplete} {
		f := &model.File{ID: "us_fl_" + status, AccountID: acc, EnvironmentID: e.envID, SpaceID: sp["id"].(string), Name: status + ".csv", Status: status, Mode: "import", Origin: "filesystem"}
		if err := e.db.CreateFile(t.Context(), f, "test"); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.db.FailInterruptedFiles(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("got %d (%v), want the one analyzing file failed", n, err)
	}
	got := dataOf(e.mustCall(t, "GET", "/v1/files/us_fl_analyzing", testSecret, nil))
	if got["status"] != "failed" || got["description"] == "" {
		t.Fatalf("got %v, want failed with a reason", got)
	}
	if got := dataOf(e.mustCall(t, "GET", "/v1/files/us_fl_partial", testSecret, nil)); got["status"] != "partial" {
		t.Fatalf("a file waiting for its job changed: %v", got)
	}
}
