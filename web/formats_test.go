package web_test

import (
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fieldDef is a sheet field as POST /v1/workbooks takes it.
func fieldDef(key, label, typ string) map[string]any {
	return map[string]any{"key": key, "label": label, "type": typ}
}

// waitJob polls a job until it is complete or failed.
func (e *apiEnv) waitJob(t *testing.T, id string) map[string]any {
	t.Helper()
	return e.waitSettled(t, "/v1/jobs/"+id, 600)
}

// waitSettled polls an API resource (a job or a file) every 25 ms, at most tries times,
// until its status is complete or failed, and returns it.
func (e *apiEnv) waitSettled(t *testing.T, path string, tries int) map[string]any {
	t.Helper()
	for range tries {
		r := dataOf(e.mustCall(t, "GET", path, testSecret, nil))
		if r["status"] == "complete" || r["status"] == "failed" {
			return r
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s did not finish", path)
	return nil
}

// importFile uploads a file from testdata/formats and maps it onto a new sheet of fields
// with the engine's suggestions, as an API client would; it returns the destination sheet.
func (e *apiEnv) importFile(t *testing.T, name string, fields []any) (sheetID string, plan map[string]any) {
	t.Helper()
	body, err := os.ReadFile("testdata/formats/" + name)
	if err != nil {
		t.Fatal(err)
	}
	spaceID := e.mustCreateSpace(t, testSecret, map[string]any{"name": name})["id"].(string)
	f := e.mustUpload(t, spaceID, name, string(body))
	if f["status"] != "complete" {
		t.Fatalf("%s: extraction %v: %v", name, f["status"], f["description"])
	}
	wb := e.mustCreateWorkbook(t, map[string]any{"name": "Dest", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Dest", "fields": fields}}})
	sheetID = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	j := e.mustCreateJob(t, map[string]any{"type": "workbook", "operation": "map", "source": f["workbookId"], "destination": wb["id"], "trigger": "manual",
		"config": map[string]any{"sourceSheetId": f["sheetId"], "destinationSheetId": sheetID}})
	plan = dataOf(e.mustCall(t, "GET", "/v1/jobs/"+j["id"].(string)+"/plan", testSecret, nil))["plan"].(map[string]any)
	e.mustCall(t, "POST", "/v1/jobs/"+j["id"].(string)+"/execute", testSecret, nil)
	if done := e.waitJob(t, j["id"].(string)); done["status"] != "complete" {
		t.Fatalf("%s: map job %v: %v", name, done["status"], done["outcome"])
	}
	return sheetID, plan
}

// edgeMeta is the plan's metadata for the edge onto destination key.
func edgeMeta(t *testing.T, plan map[string]any, key string) map[string]any {
	t.Helper()
	for _, e := range plan["fieldMapping"].([]any) {
		e := e.(map[string]any)
		if e["destinationField"].(map[string]any)["key"] == key {
			return e["metadata"].(map[string]any)
		}
	}
	t.Fatalf("no edge onto %s in %v", key, plan)
	return nil
}

func (e *apiEnv) errorCount(t *testing.T, sheetID string) float64 {
	t.Helper()
	c := dataOf(e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/counts", testSecret, nil))["counts"].(map[string]any)
	return c["error"].(float64)
}

func (e *apiEnv) findRecord(t *testing.T, sheetID, field, value string) map[string]any {
	t.Helper()
	recs := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?includeMessages=true&searchField="+field+"&searchValue="+url.QueryEscape(`"`+value+`"`), testSecret, nil))
	if len(recs) != 1 {
		t.Fatalf("%s = %q: %d records", field, value, len(recs))
	}
	return recs[0]
}

// A European CRM export (Windows-1252, DOB as 23/08/1984, revenue as "621,113.00") lands with
// no error: the whole DOB column proves day/month/year, the revenue column the decimal
// point; dates are stored as ISO, amounts as numbers, the text as written in metadata.
func TestFormatsCRMExport(t *testing.T) {
	e := newAPI(t)
	startWorker(t, e)
	sheetID, plan := e.importFile(t, "crm-export-cp1252.csv", []any{
		fieldDef("customer_id", "Customer ID", "string"),
		fieldDef("first_name", "First Name", "string"),
		fieldDef("last_name", "Last Name", "string"),
		fieldDef("dob", "DOB", "date"),
		fieldDef("revenue", "Annual Revenue (USD)", "number"),
	})
	dob := edgeMeta(t, plan, "dob")
	reading := dob["reading"].(map[string]any)
	if dob["format"] != "DMY" || reading["ambiguous"] != false || reading["proof"].(float64) < 1000 || reading["values"].(float64) != 2000 {
		t.Fatalf("DOB's reading: %v %v", dob["format"], reading)
	}
	if rev := edgeMeta(t, plan, "revenue"); rev["format"] != "." {
		t.Fatalf("revenue's reading: %v", rev)
	}
	if n := e.errorCount(t, sheetID); n != 0 {
		t.Fatalf("%v records in error, want none", n)
	}
	data, _ := os.ReadFile("testdata/formats/crm-export-cp1252.csv")
	line := strings.Split(string(data), "\r\n")[1] // C10000,…
	r := e.findRecord(t, sheetID, "customer_id", "C10000")
	src := r["metadata"].(map[string]any)["source"].(map[string]any)
	if !strings.Contains(line, src["dob"].(string)) || !strings.Contains(line, src["revenue"].(string)) {
		t.Fatalf("metadata.source %v does not hold the file's text %q", src, line)
	}
	parts := strings.Split(src["dob"].(string), "/")
	if cellValue(r, "dob") != parts[2]+"-"+parts[1]+"-"+parts[0] {
		t.Fatalf("DOB %v stored as %v", src["dob"], cellValue(r, "dob"))
	}
	if v, ok := cellValue(r, "revenue").(float64); !ok || v < 1000 {
		t.Fatalf("revenue %v stored as %v", src["revenue"], cellValue(r, "revenue"))
	}
}

// A German bank export (31.12.2024, "3.645,05 €") and a US one ("12/31/2024", "$2,412.88",
// "(45.00)", yes/no) read the way each was written.
func TestFormatsBankAndUSExports(t *testing.T) {
	e := newAPI(t)
	startWorker(t, e)
	de, plan := e.importFile(t, "bank-export-de.csv", []any{
		fieldDef("booked", "Buchungstag", "date"),
		fieldDef("payee", "Empfänger", "string"),
		fieldDef("amount", "Betrag", "number"),
	})
	if m := edgeMeta(t, plan, "amount"); m["format"] != "," {
		t.Fatalf("Betrag's reading: %v", m)
	}
	if n := e.errorCount(t, de); n != 0 {
		t.Fatalf("bank export: %v records in error", n)
	}
	recs := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+de+"/records?pageSize=1", testSecret, nil))
	if cellValue(recs[0], "booked") != "2024-09-22" || cellValue(recs[0], "amount") != 3645.05 {
		t.Fatalf("first booking: %v", recs[0]["values"])
	}
	us, plan := e.importFile(t, "invoices-us.csv", []any{
		fieldDef("invoice", "Invoice", "string"),
		fieldDef("date", "Invoice Date", "date"),
		fieldDef("amount", "Amount", "number"),
		fieldDef("paid", "Paid", "boolean"),
	})
	if m := edgeMeta(t, plan, "date"); m["format"] != "MDY" {
		t.Fatalf("Invoice Date's reading: %v", m)
	}
	if n := e.errorCount(t, us); n != 0 {
		t.Fatalf("US export: %v records in error", n)
	}
	r := e.findRecord(t, us, "invoice", "INV-5000")
	if cellValue(r, "date") != "2024-12-31" || cellValue(r, "amount") != 2412.88 || cellValue(r, "paid") != true {
		t.Fatalf("INV-5000: %v", r["values"])
	}
	neg := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+us+"/records?q="+url.QueryEscape("amount lt 0")+"&pageSize=1", testSecret, nil))
	if len(neg) != 1 || !strings.HasPrefix(neg[0]["metadata"].(map[string]any)["source"].(map[string]any)["amount"].(string), "(") {
		t.Fatalf("an accounting negative: %v", neg)
	}
}

// A column of dates that all read both ways is not guessed: without a choice each value
// that needs one is an error saying so, and the plan marks the column ambiguous.
func TestFormatsAmbiguousColumnIsNotGuessed(t *testing.T) {
	e := newAPI(t)
	startWorker(t, e)
	sheetID, plan := e.importFile(t, "ambiguous-dates.csv", []any{
		fieldDef("name", "Name", "string"),
		fieldDef("start", "Start", "date"),
	})
	m := edgeMeta(t, plan, "start")
	if m["format"] != nil || m["reading"].(map[string]any)["ambiguous"] != true {
		t.Fatalf("Start's reading: %v", m)
	}
	// 05/08, 12/10, 03/04, 01/02 need a choice; 11/12 too; 07/07 does not.
	if n := e.errorCount(t, sheetID); n != 5 {
		t.Fatalf("%v records in error, want 5", n)
	}
	r := e.findRecord(t, sheetID, "name", "P0")
	cell := r["values"].(map[string]any)["start"].(map[string]any)
	msgs := cell["messages"].([]any)
	if cell["value"] != "05/08/2020" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "could be day/month or month/day") {
		t.Fatalf("P0's start: %v", cell)
	}
	if v := cellValue(e.findRecord(t, sheetID, "name", "P5"), "start"); v != "2020-07-07" {
		t.Fatalf("07/07/2020 stored as %v", v)
	}
}

// The wizard shows each date or number column's reading: the order its values prove, with a
// switch; a column whose values do not decide must be confirmed before Import, and the
// choice goes with the mapping rule and decides the stored dates.
func TestWizardShowsAndConfirmsFormats(t *testing.T) {
	e := newAPI(t)
	startWorker(t, e)
	spaceID := e.mustCreateSpace(t, testSecret, map[string]any{"name": "wizard formats"})["id"].(string)
	wb := e.mustCreateWorkbook(t, map[string]any{"name": "People", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "People", "fields": []any{
		fieldDef("name", "Name", "string"), fieldDef("start", "Start", "date"),
		fieldDef("dob", "DOB", "date")}}}})
	dest := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	ambiguous, _ := os.ReadFile("testdata/formats/ambiguous-dates.csv")
	f := e.mustUpload(t, spaceID, "ambiguous-dates.csv", string(ambiguous))
	b := loggedIn(t, e)
	href := "/space/" + spaceID + "/import/" + f["id"].(string)
	_, doc := b.do(t, "GET", href+"?to="+dest, nil, false)
	format := doc.Find(`[data-testid=import-row][data-column=Start] [data-testid=import-format]`)
	if format.AttrOr("data-ambiguous", "") != "true" || !strings.Contains(format.Text(), "Every value reads both as day/month and month/day (e.g. 05/08/2020)") {
		t.Fatalf("Start's format line: %q", format.Text())
	}
	if sel := format.Find(`select[name="fmt:Start"]`); sel.AttrOr("required", "x") == "x" || sel.Find(`option[selected]`).AttrOr("value", "x") != "" {
		t.Fatalf("the ambiguous column's switch must start unchosen and be required")
	}
	form := url.Values{"to": {dest}, "src": {"Name", "Start"}, "dest": {"name", "start"}}
	resp, part := b.do(t, "POST", href, form, true)
	if resp.StatusCode != 400 || !strings.Contains(part.Text(), "Choose how to read Start before importing") {
		t.Fatalf("import without confirming: %d %q", resp.StatusCode, part.Text())
	}
	form.Set("fmt:Start", "DMY")
	resp, part = b.do(t, "POST", href, form, true)
	if resp.StatusCode != 200 || part.Find(`[data-testid=job-progress]`).Length() != 1 {
		t.Fatalf("import with day/month/year: %d %q", resp.StatusCode, part.Text())
	}
	jobID := strings.TrimSuffix(strings.TrimPrefix(part.Find(`[data-testid=job-progress]`).AttrOr("hx-get", ""), "/space/"+spaceID+"/jobs/"), "/progress")
	if j := e.waitJob(t, jobID); j["status"] != "complete" {
		t.Fatalf("map job: %v", j["outcome"])
	}
	if n := e.errorCount(t, dest); n != 0 {
		t.Fatalf("%v records in error after choosing day/month/year", n)
	}
	if v := cellValue(e.findRecord(t, dest, "name", "P0"), "start"); v != "2020-08-05" {
		t.Fatalf("05/08/2020 read as day/month/year: %v", v)
	}

	// The grid shows the stored ISO date the way the page's language writes dates.
	gridDate := func(lang string) string {
		b.cookies["lang"] = lang
		_, doc := b.do(t, "GET", "/space/"+spaceID+"/sheet/"+dest+"?search=P0", nil, false)
		cell := doc.Find(`td[data-key=start] span[title="2020-08-05"]`)
		return strings.TrimSpace(cell.Text())
	}
	for lang, want := range map[string]string{"en": "Aug 5, 2020", "de": "05.08.2020", "jp": "2020/08/05"} {
		if got := gridDate(lang); got != want {
			t.Fatalf("the grid in %s shows 2020-08-05 as %q, want %q", lang, got, want)
		}
	}
	b.cookies["lang"] = "en"

	// The next file with that column: its values leave the reading open again, and the
	// switch starts at the reading chosen last time.
	f = e.mustUpload(t, spaceID, "ambiguous-again.csv", string(ambiguous))
	_, doc = b.do(t, "GET", "/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest, nil, false)
	format = doc.Find(`[data-testid=import-row][data-column=Start] [data-testid=import-format]`)
	if v := format.Find(`select option[selected]`).AttrOr("value", ""); v != "DMY" || !strings.Contains(format.Text(), "Last time this column was read as day/month/year") {
		t.Fatalf("the second import's Start switch: %q, %q", v, format.Text())
	}

	// A column its values decide: the reading and how many values prove it, preselected.
	crm, _ := os.ReadFile("testdata/formats/crm-export-cp1252.csv")
	f = e.mustUpload(t, spaceID, "crm.csv", string(crm))
	_, doc = b.do(t, "GET", "/space/"+spaceID+"/import/"+f["id"].(string)+"?to="+dest, nil, false)
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
	e := newAPI(t)
	spaceID := e.mustCreateSpace(t, testSecret, map[string]any{"name": "hints"})["id"].(string)
	field := func(key, typ string, format map[string]any) map[string]any {
		f := map[string]any{"key": key, "type": typ}
		if format != nil {
			f["config"] = map[string]any{"format": format}
		}
		return f
	}
	wb := e.mustCreateWorkbook(t, map[string]any{"name": "Hints", "spaceId": spaceID, "sheets": []any{
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
	e.mustCall(t, "POST", "/v1/sheets/"+eu+"/records", testSecret, []any{in})
	r := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+eu+"/records", testSecret, nil))[0]
	if cellValue(r, "dob") != "1963-08-05" || cellValue(r, "amount") != 1234.56 || cellValue(r, "us_date") != "1963-05-08" {
		t.Fatalf("read with the sheet's and the field's hints: %v", r["values"])
	}

	un := unhinted["id"].(string)
	e.mustCall(t, "POST", "/v1/sheets/"+un+"/records", testSecret, []any{row("23/08/1984", "621,113.00"), row("05/08/1963", "1.5")})
	recs := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+un+"/records?includeMessages=true", testSecret, nil))
	if cellValue(recs[0], "dob") != "1984-08-23" || cellValue(recs[0], "amount") != 621113.0 {
		t.Fatalf("unambiguous values without a hint: %v", recs[0]["values"])
	}
	dob := recs[1]["values"].(map[string]any)["dob"].(map[string]any)
	msgs, _ := dob["messages"].([]any)
	if dob["value"] != "05/08/1963" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "could be day/month or month/day") {
		t.Fatalf("an ambiguous date without a hint is kept as written with an error: %v", dob)
	}

	status, out := e.call(t, "POST", "/v1/workbooks", testSecret, map[string]any{"name": "Bad", "spaceId": spaceID, "sheets": []any{
		map[string]any{"name": "Bad", "format": map[string]any{"dateFormat": "DD.MM.YY"}, "fields": []any{field("dob", "date", nil)}}}})
	if status != 400 || !strings.Contains(errorMessage(out), "dateFormat must be DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD") {
		t.Fatalf("a sheet hint that is not a format: %d %v", status, out)
	}
}

// POST /v1/files/detect-header says how each column below the header reads.
func TestDetectHeaderShowsFormats(t *testing.T) {
	e := newAPI(t)
	out := dataOf(e.mustCall(t, "POST", "/v1/files/detect-header", testSecret, map[string]any{"data": [][]string{
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
	e := newAPI(t)
	startWorker(t, e)
	sheetID, plan := e.importFile(t, "hr-export-serial-dates.xlsx", []any{
		fieldDef("employee", "Employee", "string"),
		fieldDef("start", "Start date", "date"),
		fieldDef("birthday", "Birthday", "date"),
		fieldDef("review", "Last review", "date"),
		fieldDef("hired", "Hired (serial)", "date"),
		fieldDef("salary", "Salary", "number"),
	})
	if m := edgeMeta(t, plan, "hired"); m["format"] != "serial" {
		t.Fatalf("bare serial numbers: %v", m)
	}
	if m := edgeMeta(t, plan, "review"); m["format"] != "DMY" {
		t.Fatalf("23.08.2024 and 31.12.2023: %v", m)
	}
	want := map[string]map[string]any{
		"Ana Souza":    {"start": "2024-01-01", "birthday": "1984-08-23", "review": "2024-08-23", "hired": "2024-01-01", "salary": 52000.5},
		"Bernd Müller": {"start": "2021-01-01", "birthday": "1980-01-01", "review": "2024-01-05", "hired": "2021-01-01", "salary": 61250.0},
		"Chloé Martin": {"start": "2019-01-01", "birthday": "1990-05-07", "review": "2023-12-31", "hired": "2019-01-01", "salary": 48900.75},
	}
	for name, fields := range want {
		r := e.findRecord(t, sheetID, "employee", name)
		for k, v := range fields {
			if got := cellValue(r, k); got != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got, v)
			}
		}
	}
	if n := e.errorCount(t, sheetID); n != 1 {
		t.Fatalf("%v records in error, want 1 (the review that is \"not done\")", n)
	}
	r := e.findRecord(t, sheetID, "employee", "Dai Nguyen")
	review := r["values"].(map[string]any)["review"].(map[string]any)
	msgs, _ := review["messages"].([]any)
	if review["value"] != "not done" || len(msgs) != 1 || !strings.Contains(msgs[0].(map[string]any)["message"].(string), "Expected a date as day/month/year") {
		t.Fatalf("an unreadable review: %v", review)
	}

	// The wizard says how it reads the file's columns.
	wb := dataOf(e.mustCall(t, "GET", "/v1/workbooks/"+dataOf(e.mustCall(t, "GET", "/v1/sheets/"+sheetID, testSecret, nil))["workbookId"].(string), testSecret, nil))
	spaceID := wb["spaceId"].(string)
	file := listOf(e.mustCall(t, "GET", "/v1/files?spaceId="+spaceID, testSecret, nil))[0].(map[string]any)
	_, doc := loggedIn(t, e).do(t, "GET", "/space/"+spaceID+"/import/"+file["id"].(string)+"?to="+sheetID, nil, false)
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
	e := newAPI(t)
	startWorker(t, e)
	spaceID := e.mustCreateSpace(t, testSecret, map[string]any{"name": "typed source"})["id"].(string)
	text := func(keys ...string) []any {
		var out []any
		for _, k := range keys {
			out = append(out, map[string]any{"key": k, "label": k, "type": "string"})
		}
		return out
	}
	src := e.mustCreateWorkbook(t, map[string]any{"name": "Pasted", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Pasted", "fields": text("Name", "Joined", "Amount")}}})
	dst := e.mustCreateWorkbook(t, map[string]any{"name": "Clean", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Clean", "fields": []any{
		fieldDef("name", "Name", "string"), fieldDef("joined", "Joined", "date"),
		fieldDef("amount", "Amount", "number")}}}})
	srcSheet := src["sheets"].([]any)[0].(map[string]any)["id"].(string)
	dstSheet := dst["sheets"].([]any)[0].(map[string]any)["id"].(string)
	row := func(name, joined, amount string) map[string]any {
		return map[string]any{"Name": map[string]any{"value": name}, "Joined": map[string]any{"value": joined}, "Amount": map[string]any{"value": amount}}
	}
	e.mustCall(t, "POST", "/v1/sheets/"+srcSheet+"/records", testSecret, []any{row("A", "23/08/1984", "1.234,56"), row("B", "05/08/1963", "7,5")})
	j := e.mustCreateJob(t, map[string]any{"type": "workbook", "operation": "map", "source": src["id"], "destination": dst["id"], "trigger": "manual",
		"config": map[string]any{"sourceSheetId": srcSheet, "destinationSheetId": dstSheet}})
	plan := dataOf(e.mustCall(t, "GET", "/v1/jobs/"+j["id"].(string)+"/plan", testSecret, nil))["plan"].(map[string]any)
	if m := edgeMeta(t, plan, "joined"); m["format"] != "DMY" || m["reading"].(map[string]any)["proof"] != 1.0 {
		t.Fatalf("Joined's reading: %v", m)
	}
	if m := edgeMeta(t, plan, "amount"); m["format"] != "," {
		t.Fatalf("Amount's reading: %v", m)
	}
	e.mustCall(t, "POST", "/v1/jobs/"+j["id"].(string)+"/execute", testSecret, nil)
	if done := e.waitJob(t, j["id"].(string)); done["status"] != "complete" {
		t.Fatalf("map job: %v", done["outcome"])
	}
	b := e.findRecord(t, dstSheet, "name", "B")
	if cellValue(b, "joined") != "1963-08-05" || cellValue(b, "amount") != 7.5 {
		t.Fatalf("B read with the column's formats: %v", b["values"])
	}
	if n := e.errorCount(t, dstSheet); n != 0 {
		t.Fatalf("%v records in error", n)
	}
}
