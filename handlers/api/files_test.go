package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

func TestInterruptedExtractionsFailAtStart(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "f"})
	acc := webtest.DataOf(e.MustCall(t, "GET", "/v1/accounts/current", webtest.Secret, nil))["id"].(string)
	for _, status := range []string{model.FileStatusAnalyzing, model.FileStatusPartial, model.FileStatusComplete} {
		f := &model.File{ID: "us_fl_" + status, AccountID: acc, EnvironmentID: e.EnvID, SpaceID: sp["id"].(string), Name: status + ".csv", Status: status, Mode: "import", Origin: "filesystem"}
		if err := e.DB.CreateFile(t.Context(), f, "test"); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.DB.FailInterruptedFiles(t.Context(), store.InterruptedByRestart)
	if err != nil || n != 1 {
		t.Fatalf("got %d (%v), want the one analyzing file failed", n, err)
	}
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/files/us_fl_analyzing", webtest.Secret, nil))
	if got["status"] != "failed" || got["description"] == "" {
		t.Fatalf("got %v, want failed with a reason", got)
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/files/us_fl_partial", webtest.Secret, nil)); got["status"] != "partial" {
		t.Fatalf("a file waiting for its job changed: %v", got)
	}
}

// An extraction interrupted half-way leaves no rows behind in the records table itself (the
// API hiding them is not enough): the restart path deletes what it wrote before failing the
// file, whether or not its job's notes of what it added are settled first.
func TestInterruptedExtractionLeavesNoRows(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "half"})
	var csv strings.Builder
	csv.WriteString("email,name\n")
	for i := range 3000 {
		fmt.Fprintf(&csv, "p%d@example.com,P %d\n", i, i)
	}
	f := e.MustUpload(t, sp["id"].(string), "half.csv", csv.String())
	if f["status"] != "complete" {
		t.Fatalf("upload: %v", f)
	}
	sheetID := f["sheetId"].(string)
	key, err := e.DB.CountForTest(t.Context(), `SELECT sk FROM record_sheets WHERE sheet_id = ?`, sheetID)
	if err != nil {
		t.Fatal(err)
	}
	sk := int64(key)
	rows := func() int {
		n, err := e.DB.CountForTest(t.Context(), `SELECT COUNT(*) FROM records WHERE rid >= ? AND rid < ?`, sk<<36, (sk+1)<<36)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 3000 {
		t.Fatalf("%d rows before, want 3000", n)
	}
	// What a stop mid-extraction leaves: the file analyzing with its workbook, the rows written.
	if err := e.DB.ExecForTest(t.Context(), `UPDATE files SET status = 'analyzing' WHERE id = ?`, f["id"]); err != nil {
		t.Fatal(err)
	}
	if n, err := e.DB.FailInterruptedFiles(t.Context(), store.InterruptedByRestart); err != nil || n != 1 {
		t.Fatalf("failed %d files (%v), want 1", n, err)
	}
	if n := rows(); n != 0 {
		t.Errorf("%d rows of the interrupted file are left in the records table", n)
	}
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/files/"+f["id"].(string), webtest.Secret, nil))
	if got["status"] != "failed" || got["workbookId"] != nil && got["workbookId"] != "" {
		t.Errorf("file after: %v", got)
	}
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil); st != 404 {
		t.Errorf("the file's sheet: %d, want 404", st)
	}
}
