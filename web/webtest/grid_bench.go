package webtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func PasteOnce(b *testing.B, rows int) time.Duration {
	b.StopTimer()
	e := NewAPI(b)
	s := LoggedIn(b, e)
	spaceID, sheetID := e.MustCreateRecordSheet(b, SpreadsheetFields)
	out := e.MustCall(b, "POST", "/v1/sheets/"+sheetID+"/records", Secret, []any{map[string]any{"name": map[string]any{"value": "first"}}})
	first := RecordsOf(b, out)[0]["id"].(string)
	edit := map[string]any{"what": "paste"}
	var add []any
	for i := 0; i < rows; i++ {
		vals := map[string]any{"name": fmt.Sprintf("name %d", i), "age": fmt.Sprint(i), "active": []string{"no", "yes"}[i%2],
			"status": []string{"Stopped", "Running"}[min(i%3, 1)], "code": fmt.Sprintf("c%d", i)}
		if i == 0 {
			edit["set"] = []any{map[string]any{"id": first, "values": vals}}
		} else {
			add = append(add, map[string]any{"values": vals})
		}
	}
	edit["add"] = add
	body, _ := json.Marshal(edit)
	req := httptest.NewRequest("POST", "/space/"+spaceID+"/sheet/"+sheetID+"/edit", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", s.Csrf)
	for k, v := range s.Cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	b.StartTimer()
	start := time.Now()
	resp, err := e.App.Test(req, -1)
	took := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(raw), fmt.Sprintf(`"all":%d`, rows)) {
		b.Fatalf("paste: %d %.300s", resp.StatusCode, raw)
	}
	return took
}
