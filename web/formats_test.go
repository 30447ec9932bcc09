package web_test

import (
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// A European CRM export (Windows-1252, DOB as 23/08/1984, revenue as "621,113.00") lands with
// no error: the whole DOB column proves day/month/year, the revenue column the decimal
// point; dates are stored as ISO, amounts as numbers, the text as written in metadata.
func TestFormatsCRMExport(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sheetID, plan := e.ImportFile(t, "crm-export-cp1252.csv", []any{
		webtest.FieldDef("customer_id", "Customer ID", "string"),
		webtest.FieldDef("first_name", "First Name", "string"),
		webtest.FieldDef("last_name", "Last Name", "string"),
		webtest.FieldDef("dob", "DOB", "date"),
		webtest.FieldDef("revenue", "Annual Revenue (USD)", "number"),
	})
	dob := webtest.EdgeMeta(t, plan, "dob")
	reading := dob["reading"].(map[string]any)
	if dob["format"] != "DMY" || reading["ambiguous"] != false || reading["proof"].(float64) < 1000 || reading["values"].(float64) != 2000 {
		t.Fatalf("DOB's reading: %v %v", dob["format"], reading)
	}
	if rev := webtest.EdgeMeta(t, plan, "revenue"); rev["format"] != "." {
		t.Fatalf("revenue's reading: %v", rev)
	}
	if n := e.ErrorCount(t, sheetID); n != 0 {
		t.Fatalf("%v records in error, want none", n)
	}
	data, _ := os.ReadFile("testdata/formats/crm-export-cp1252.csv")
	line := strings.Split(string(data), "\r\n")[1] // C10000,…
	r := e.FindRecord(t, sheetID, "customer_id", "C10000")
	src := r["metadata"].(map[string]any)["source"].(map[string]any)
	if !strings.Contains(line, src["dob"].(string)) || !strings.Contains(line, src["revenue"].(string)) {
		t.Fatalf("metadata.source %v does not hold the file's text %q", src, line)
	}
	parts := strings.Split(src["dob"].(string), "/")
	if webtest.CellValue(r, "dob") != parts[2]+"-"+parts[1]+"-"+parts[0] {
		t.Fatalf("DOB %v stored as %v", src["dob"], webtest.CellValue(r, "dob"))
	}
	if v, ok := webtest.CellValue(r, "revenue").(float64); !ok || v < 1000 {
		t.Fatalf("revenue %v stored as %v", src["revenue"], webtest.CellValue(r, "revenue"))
	}
}

// A German bank export (31.12.2024, "3.645,05 €") and a US one ("12/31/2024", "$2,412.88",
// "(45.00)", yes/no) read the way each was written.
func TestFormatsBankAndUSExports(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	de, plan := e.ImportFile(t, "bank-export-de.csv", []any{
		webtest.FieldDef("booked", "Buchungstag", "date"),
		webtest.FieldDef("payee", "Empfänger", "string"),
		webtest.FieldDef("amount", "Betrag", "number"),
	})
	if m := webtest.EdgeMeta(t, plan, "amount"); m["format"] != "," {
		t.Fatalf("Betrag's reading: %v", m)
	}
	if n := e.ErrorCount(t, de); n != 0 {
		t.Fatalf("bank export: %v records in error", n)
	}
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+de+"/records?pageSize=1", webtest.Secret, nil))
	if webtest.CellValue(recs[0], "booked") != "2024-09-22" || webtest.CellValue(recs[0], "amount") != 3645.05 {
		t.Fatalf("first booking: %v", recs[0]["values"])
	}
	us, plan := e.ImportFile(t, "invoices-us.csv", []any{
		webtest.FieldDef("invoice", "Invoice", "string"),
		webtest.FieldDef("date", "Invoice Date", "date"),
		webtest.FieldDef("amount", "Amount", "number"),
		webtest.FieldDef("paid", "Paid", "boolean"),
	})
	if m := webtest.EdgeMeta(t, plan, "date"); m["format"] != "MDY" {
		t.Fatalf("Invoice Date's reading: %v", m)
	}
	if n := e.ErrorCount(t, us); n != 0 {
		t.Fatalf("US export: %v records in error", n)
	}
	r := e.FindRecord(t, us, "invoice", "INV-5000")
	if webtest.CellValue(r, "date") != "2024-12-31" || webtest.CellValue(r, "amount") != 2412.88 || webtest.CellValue(r, "paid") != true {
		t.Fatalf("INV-5000: %v", r["values"])
	}
	neg := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+us+"/records?q="+url.QueryEscape("amount lt 0")+"&pageSize=1", webtest.Secret, nil))
	if len(neg) != 1 || !strings.HasPrefix(neg[0]["metadata"].(map[string]any)["source"].(map[string]any)["amount"].(string), "(") {
		t.Fatalf("an accounting negative: %v", neg)
	}
}

// A column of dates that all read both ways is not guessed: without a choice each value
// that needs one is an error saying so, and the plan marks the column ambiguous.
func TestFormatsAmbiguousColumnIsNotGuessed(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sheetID, plan := e.ImportFile(t, "ambiguous-dates.csv", []any{
		webtest.FieldDef("name", "Name", "string"),
		webtest.FieldDef("start", "Start", "date"),
	})
	m := webtest.EdgeMeta(t, plan, "start")
	if m["format"] != nil || m["reading"].(map[string]any)["ambiguous"] != true {
		t.Fatalf("Start's reading: %v", m)
	}
	// 05/08, 12/10, 03/04, 01/02 need a choice; 11/12 too; 07/07 does not.
	if n := e.ErrorCount(t, sheetID); n != 5 {
		t.Fatalf("%v records in error, want 5", n)
	}
	r := e.FindRecord(t, sheetID, "name", "P0")
	cell := r["values"].(map[string]any)["start"].(map[string]any)
	msgs := cell["messages"].([]any)
	if cell["value"] != "05/08/2020" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "could be day/month or month/day") {
		t.Fatalf("P0's start: %v", cell)
	}
	if v := webtest.CellValue(e.FindRecord(t, sheetID, "name", "P5"), "start"); v != "2020-07-07" {
		t.Fatalf("07/07/2020 stored as %v", v)
	}
}

// The wizard shows each date or number column's reading: the order its values prove, with a
// switch; a column whose values do not decide must be confirmed before Import, and the
// choice goes with the mapping rule and decides the stored dates.
func TestWizardShowsAndConfirmsFormats(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "wizard formats"})["id"].(string)
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		webtest.FieldDef("name", "Name", "string"), webtest.FieldDef("start", "Start", "date"),
		webtest.FieldDef("dob", "DOB", "date")}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	ambiguous, _ := os.ReadFile("testdata/formats/ambiguous-dates.csv")
	f := e.MustUpload(t, spaceID, "ambiguous-dates.csv", string(ambiguous))
	b := webtest.LoggedIn(t, e)
	href := "/space/" + spaceID + "/import/" + f["id"].(string)
	_, doc := b.Do(t, "GET", href+"?to="+dest, nil, false)
	format := doc.Find(`[data-testid=import-row][data-column=Start] [data-testid=import-format]`)
	if format.AttrOr("data-ambiguous", "") != "true" || !strings.Contains(format.Text(), "Every value reads both as day/month and month/day (e.g. 05/08/2020)") {
		t.Fatalf("Start's format line: %q", format.Text())
	}
	if sel := format.Find(`select[name="fmt:Start"]`); sel.AttrOr("required", "x") == "x" || sel.Find(`option[selected]`).AttrOr("value", "x") != "" {
		t.Fatalf("the ambiguous column's switch must start unchosen and be required")
	}
	form := url.Values{"to": {dest}, "src": {"Name", "Start"}, "dest": {"name", "start"}}
	resp, part := b.Do(t, "POST", href, form, true)
	if resp.StatusCode != 400 || !strings.Contains(part.Text(), "Choose how to read Start before importing") {
		t.Fatalf("import without confirming: %d %q", resp.StatusCode, part.Text())
	}
	form.Set("fmt:Start", "DMY")
	resp, part = b.Do(t, "POST", href, form, true)
	if resp.StatusCode != 200 || part.Find(`[data-testid=job-progress]`).Length() != 1 {
		t.Fatalf("import with day/month/year: %d %q", resp.StatusCode, part.Text())
	}
	jobID := strings.TrimSuffix(strings.TrimPrefix(part.Find(`[data-testid=job-progress]`).AttrOr("hx-get", ""), "/space/"+spaceID+"/jobs/"), "/progress")
	if j := e.WaitJob(t, jobID); j["status"] != "complete" {
		t.Fatalf("map job: %v", j["outcome"])
	}
	if n := e.ErrorCount(t, dest); n != 0 {
		t.Fatalf("%v records in error after choosing day/month/year", n)
	}
	if v := webtest.CellValue(e.FindRecord(t, dest, "name", "P0"), "start"); v != "2020-08-05" {
		t.Fatalf("05/08/2020 read as day/month/year: %v", v)
	}

	// The grid shows the stored ISO date the way the page's language writes dates.
	gridDate := func(lang string) string {
		b.Cookies["lang"] = lang
		_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+dest+"?search=P0", nil, false)
		cell := doc.Find(`td[data-key=start] span[title="2020-08-05"]`)
		return strings.TrimSpace(cell.Text())
	}
	for lang, want := range map[string]string{"en": "Aug 5, 2020", "de": "05.08.2020", "jp": "2020/08/05"} {
		if got := gridDate(lang); got != want {
			t.Fatalf("the grid in %s shows 2020-08-05 as %q, want %q", lang, got, want)
		}
	}
	b.Cookies["lang"] = "en"

	// The next file with that column: its values leave the reading open again, and the
	// switch starts at the reading chosen last time.
	f = e.MustUpload(t, spaceID, "ambiguous-again.csv", string(ambiguous))
	_, doc = b.Do(t, "GET", "/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest, nil, false)
	format = doc.Find(`[data-testid=import-row][data-column=Start] [data-testid=import-format]`)
	if v := format.Find(`select option[selected]`).AttrOr("value", ""); v != "DMY" || !strings.Contains(format.Text(), "Last time this column was read as day/month/year") {
		t.Fatalf("the second import's Start switch: %q, %q", v, format.Text())
	}

	// A column its values decide: the reading and how many values prove it, preselected.
	crm, _ := os.ReadFile("testdata/formats/crm-export-cp1252.csv")
	f = e.MustUpload(t, spaceID, "crm.csv", string(crm))
	_, doc = b.Do(t, "GET", "/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest, nil, false)
	format = doc.Find(`[data-testid=import-row][data-column=DOB] [data-testid=import-format]`)
	text := strings.Join(strings.Fields(format.Find(`[data-testid=import-format-text]`).Text()), " ")
	if format.AttrOr("data-ambiguous", "") != "false" || !strings.HasPrefix(text, "Read as day/month/year — values that can only be read this way: ") {
		t.Fatalf("DOB's format line: %q", text)
	}
	if v := format.Find(`select option[selected]`).AttrOr("value", ""); v != "DMY" {
		t.Fatalf("DOB's switch shows %q", v)
	}
	if ex := format.Find(`[data-testid=import-format-example]`).Text(); !regexp.MustCompile(`^\(\d\d/\d\d/\d{4} → \d{4}-\d\d-\d\d\)$`).MatchString(ex) {
		t.Fatalf("DOB's example of how a value is stored: %q", ex)
	}
}

// Records written through /v1 are read with the sheet's config.format, a field's own
// config.format overriding it; a sheet without a hint takes unambiguous values and refuses
// to guess the ambiguous ones. Hints that are not formats are a 400.
func TestFormatsHintsThroughTheAPI(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "hints"})["id"].(string)
	field := func(key, typ string, format map[string]any) map[string]any {
		f := map[string]any{"key": key, "type": typ}
		if format != nil {
			f["config"] = map[string]any{"format": format}
		}
		return f
	}
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Hints", "spaceId": spaceID, "sheets": []any{
		map[string]any{"name": "European", "format": map[string]any{"dateFormat": "DD/MM/YYYY", "decimalSeparator": ","}, "fields": []any{
			field("dob", "date", nil), field("amount", "number", nil), field("us_date", "date", map[string]any{"dateFormat": "MM/DD/YYYY"})}},
		map[string]any{"name": "Unhinted", "fields": []any{field("dob", "date", nil), field("amount", "number", nil)}},
	}})
	sheets := wb["sheets"].([]any)
	european, unhinted := sheets[0].(map[string]any), sheets[1].(map[string]any)
	if f, _ := european["config"].(map[string]any)["format"].(map[string]any); f["dateFormat"] != "DD/MM/YYYY" {
		t.Fatalf("the sheet's config.format is not kept: %v", european["config"])
	}
	row := func(dob, amount string) map[string]any {
		return map[string]any{"dob": map[string]any{"value": dob}, "amount": map[string]any{"value": amount}}
	}
	eu := european["id"].(string)
	in := row("05/08/1963", "1.234,56")
	in["us_date"] = map[string]any{"value": "05/08/1963"}
	e.MustCall(t, "POST", "/v1/sheets/"+eu+"/records", webtest.Secret, []any{in})
	r := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+eu+"/records", webtest.Secret, nil))[0]
	if webtest.CellValue(r, "dob") != "1963-08-05" || webtest.CellValue(r, "amount") != 1234.56 || webtest.CellValue(r, "us_date") != "1963-05-08" {
		t.Fatalf("read with the sheet's and the field's hints: %v", r["values"])
	}

	un := unhinted["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+un+"/records", webtest.Secret, []any{row("23/08/1984", "621,113.00"), row("05/08/1963", "1.5")})
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+un+"/records?includeMessages=true", webtest.Secret, nil))
	if webtest.CellValue(recs[0], "dob") != "1984-08-23" || webtest.CellValue(recs[0], "amount") != 621113.0 {
		t.Fatalf("unambiguous values without a hint: %v", recs[0]["values"])
	}
	dob := recs[1]["values"].(map[string]any)["dob"].(map[string]any)
	msgs, _ := dob["messages"].([]any)
	if dob["value"] != "05/08/1963" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "could be day/month or month/day") {
		t.Fatalf("an ambiguous date without a hint is kept as written with an error: %v", dob)
	}

	status, out := e.Call(t, "POST", "/v1/workbooks", webtest.Secret, map[string]any{"name": "Bad", "spaceId": spaceID, "sheets": []any{
		map[string]any{"name": "Bad", "format": map[string]any{"dateFormat": "DD.MM.YY"}, "fields": []any{field("dob", "date", nil)}}}})
	if status != 400 || !strings.Contains(webtest.ErrorMessage(out), "dateFormat must be DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD") {
		t.Fatalf("a sheet hint that is not a format: %d %v", status, out)
	}
}

// POST /v1/files/detect-header says how each column below the header reads.
func TestDetectHeaderShowsFormats(t *testing.T) {
	e := webtest.NewAPI(t)
	out := webtest.DataOf(e.MustCall(t, "POST", "/v1/files/detect-header", webtest.Secret, map[string]any{"data": [][]string{
		{"Buchungstag", "Betrag", "Aktiv", "Name"},
		{"31.12.2024", "1.234,56 €", "ja", "Anna"},
		{"05.01.2025", "-12,00 €", "nein", "Ben"},
	}}))
	if out["headerRow"] != 1.0 {
		t.Fatalf("headerRow %v", out["headerRow"])
	}
	cols := out["formats"].([]any)
	first := func(i int) map[string]any {
		rs := cols[i].([]any)
		if len(rs) == 0 {
			t.Fatalf("column %d has no reading: %v", i, cols)
		}
		return rs[0].(map[string]any)
	}
	if r := first(0); r["kind"] != "date" || r["format"] != "DMY" || r["proof"] != 1.0 || r["ambiguous"] != false {
		t.Fatalf("Buchungstag: %v", r)
	}
	if r := first(1); r["kind"] != "number" || r["format"] != "," || r["readable"] != 2.0 {
		t.Fatalf("Betrag: %v", r)
	}
	if r := first(2); r["kind"] != "boolean" || r["readable"] != 2.0 {
		t.Fatalf("Aktiv: %v", r)
	}
	if rs := cols[3].([]any); len(rs) != 0 {
		t.Fatalf("Name reads as %v", rs)
	}
}

// An HR export from Excel: dates in date-formatted cells (serial numbers underneath, one a
// custom dd/mm/yyyy), a column of bare serial numbers, text dates written 23.08.2024 and a
// money-formatted salary.
func TestFormatsExcelSerialDates(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	sheetID, plan := e.ImportFile(t, "hr-export-serial-dates.xlsx", []any{
		webtest.FieldDef("employee", "Employee", "string"),
		webtest.FieldDef("start", "Start date", "date"),
		webtest.FieldDef("birthday", "Birthday", "date"),
		webtest.FieldDef("review", "Last review", "date"),
		webtest.FieldDef("hired", "Hired (serial)", "date"),
		webtest.FieldDef("salary", "Salary", "number"),
	})
	if m := webtest.EdgeMeta(t, plan, "hired"); m["format"] != "serial" {
		t.Fatalf("bare serial numbers: %v", m)
	}
	if m := webtest.EdgeMeta(t, plan, "review"); m["format"] != "DMY" {
		t.Fatalf("23.08.2024 and 31.12.2023: %v", m)
	}
	want := map[string]map[string]any{
		"Ana Souza":    {"start": "2024-01-01", "birthday": "1984-08-23", "review": "2024-08-23", "hired": "2024-01-01", "salary": 52000.5},
		"Bernd Müller": {"start": "2021-01-01", "birthday": "1980-01-01", "review": "2024-01-05", "hired": "2021-01-01", "salary": 61250.0},
		"Chloé Martin": {"start": "2019-01-01", "birthday": "1990-05-07", "review": "2023-12-31", "hired": "2019-01-01", "salary": 48900.75},
	}
	for name, fields := range want {
		r := e.FindRecord(t, sheetID, "employee", name)
		for k, v := range fields {
			if got := webtest.CellValue(r, k); got != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got, v)
			}
		}
	}
	if n := e.ErrorCount(t, sheetID); n != 1 {
		t.Fatalf("%v records in error, want 1 (the review that is \"not done\")", n)
	}
	r := e.FindRecord(t, sheetID, "employee", "Dai Nguyen")
	review := r["values"].(map[string]any)["review"].(map[string]any)
	msgs, _ := review["messages"].([]any)
	if review["value"] != "not done" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "Expected a date as day/month/year") {
		t.Fatalf("an unreadable review: %v", review)
	}

	// The wizard says how it reads the file's columns.
	wb := webtest.DataOf(e.MustCall(t, "GET", "/v1/workbooks/"+webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil))["workbookId"].(string), webtest.Secret, nil))
	spaceID := wb["spaceId"].(string)
	file := webtest.ListOf(e.MustCall(t, "GET", "/v1/files?spaceId="+spaceID, webtest.Secret, nil))[0].(map[string]any)
	_, doc := webtest.LoggedIn(t, e).Do(t, "GET", "/space/"+spaceID+"/import/"+file["id"].(string)+"?to="+sheetID, nil, false)
	for col, want := range map[string]string{"Hired (serial)": "Read as Excel date numbers", "Last review": "Read as day/month/year"} {
		text := strings.Join(strings.Fields(doc.Find(`[data-testid=import-row][data-column="`+col+`"] [data-testid=import-format-text]`).Text()), " ")
		if !strings.HasPrefix(text, want) {
			t.Errorf("the wizard's line for %s: %q, want %q…", col, text, want)
		}
	}
}

// A source sheet written through the API (no file, so no counts from extraction) gets its
// columns read when they are mapped: the plan shows the reading and the map job uses it.
func TestFormatsOfASheetWithoutAFile(t *testing.T) {
	e := webtest.NewAPI(t)
	webtest.StartWorker(t, e)
	spaceID := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "typed source"})["id"].(string)
	text := func(keys ...string) []any {
		var out []any
		for _, k := range keys {
			out = append(out, map[string]any{"key": k, "label": k, "type": "string"})
		}
		return out
	}
	src := e.MustCreateWorkbook(t, map[string]any{"name": "Pasted", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Pasted", "fields": text("Name", "Joined", "Amount")}}})
	dst := e.MustCreateWorkbook(t, map[string]any{"name": "Clean", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Clean", "fields": []any{
		webtest.FieldDef("name", "Name", "string"), webtest.FieldDef("joined", "Joined", "date"),
		webtest.FieldDef("amount", "Amount", "number")}}}})
	srcSheet := src["sheets"].([]any)[0].(map[string]any)["id"].(string)
	dstSheet := dst["sheets"].([]any)[0].(map[string]any)["id"].(string)
	row := func(name, joined, amount string) map[string]any {
		return map[string]any{"Name": map[string]any{"value": name}, "Joined": map[string]any{"value": joined}, "Amount": map[string]any{"value": amount}}
	}
	e.MustCall(t, "POST", "/v1/sheets/"+srcSheet+"/records", webtest.Secret, []any{row("A", "23/08/1984", "1.234,56"), row("B", "05/08/1963", "7,5")})
	j := e.MustCreateJob(t, map[string]any{"type": "workbook", "operation": "map", "source": src["id"], "destination": dst["id"], "trigger": "manual",
		"config": map[string]any{"sourceSheetId": srcSheet, "destinationSheetId": dstSheet}})
	plan := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+j["id"].(string)+"/plan", webtest.Secret, nil))["plan"].(map[string]any)
	if m := webtest.EdgeMeta(t, plan, "joined"); m["format"] != "DMY" || m["reading"].(map[string]any)["proof"] != 1.0 {
		t.Fatalf("Joined's reading: %v", m)
	}
	if m := webtest.EdgeMeta(t, plan, "amount"); m["format"] != "," {
		t.Fatalf("Amount's reading: %v", m)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+j["id"].(string)+"/execute", webtest.Secret, nil)
	if done := e.WaitJob(t, j["id"].(string)); done["status"] != "complete" {
		t.Fatalf("map job: %v", done["outcome"])
	}
	b := e.FindRecord(t, dstSheet, "name", "B")
	if webtest.CellValue(b, "joined") != "1963-08-05" || webtest.CellValue(b, "amount") != 7.5 {
		t.Fatalf("B read with the column's formats: %v", b["values"])
	}
	if n := e.ErrorCount(t, dstSheet); n != 0 {
		t.Fatalf("%v records in error", n)
	}
}
