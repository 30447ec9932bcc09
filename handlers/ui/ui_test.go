package ui_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/BurntSushi/toml"
	"github.com/PuerkitoBio/goquery"

	"github.com/sluice/sluice/locales"
)

func TestLoginPage(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedOut(t, e)
	resp, doc := b.Do(t, "POST", "/login", url.Values{"email": {webtest.Email}, "password": {"nope"}, "_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusUnauthorized || doc.Find(`[data-testid=login-error]`).Length() != 1 {
		t.Fatalf("wrong password: got %d, want 401 with an error on the form", resp.StatusCode)
	}
	if v, _ := doc.Find(`[data-testid=login-email]`).Attr("value"); v != webtest.Email {
		t.Fatalf("got email %q kept in the form, want %q", v, webtest.Email)
	}
	b = webtest.LoggedIn(t, e)
	sess := ""
	for k := range b.Cookies {
		if k == "sluice_session" {
			sess = k
		}
	}
	if sess == "" {
		t.Fatal("no session cookie after login")
	}
	resp, doc = b.Do(t, "GET", "/", nil, false)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=user-email]`).Text() != webtest.Email {
		t.Fatalf("got %d, want the spaces page for the user", resp.StatusCode)
	}
	resp, _ = b.Do(t, "POST", "/logout", url.Values{"_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: got %d", resp.StatusCode)
	}
	if resp, _ = b.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("after logout: got %d to %q, want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestSessionCookieFlags(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedOut(t, e)
	req := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"email": {webtest.Email}, "password": {webtest.Password}, "_csrf": {b.Csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "sluice_csrf", Value: b.Cookies["sluice_csrf"]})
	resp, err := e.App.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	for _, v := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(v, "sluice_session=") {
			raw = v
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "max-age=86400"} {
		if !strings.Contains(strings.ToLower(raw), strings.ToLower(want)) {
			t.Errorf("session cookie %q lacks %s", raw, want)
		}
	}
}

func TestSessionExpiresAfter24Hours(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	e.Now = e.Now.Add(23*time.Hour + 59*time.Minute)
	if resp, _ := b.Do(t, "GET", "/", nil, false); resp.StatusCode != 200 {
		t.Fatalf("at 23h59m: got %d, want 200", resp.StatusCode)
	}
	e.Now = e.Now.Add(2 * time.Minute)
	resp, _ := b.Do(t, "GET", "/", nil, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?expired=1" {
		t.Fatalf("after 24h: got %d to %q, want a redirect to /login?expired=1", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestFormsNeedCSRFToken(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	resp, _ := b.Do(t, "POST", "/space", url.Values{"name": {"sneaky"}}, false)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("create without token: got %d, want 403", resp.StatusCode)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces", webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("a space was created without a CSRF token: %v", l)
	}
}

func TestSpacesPageWithHTMX(t *testing.T) {
	e := webtest.NewAPI(t)
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, webtest.Secret, map[string]any{"namespaces": []string{"red"}})
	b := webtest.LoggedIn(t, e)
	_, doc := b.Do(t, "GET", "/", nil, false)
	if doc.Find(`[data-testid=spaces-empty]`).Length() != 1 {
		t.Fatal("empty account: want the empty state")
	}
	if doc.Find(`[data-testid=space-namespace] option[value=red]`).Length() != 1 {
		t.Fatal("the create form should offer the environment's namespace")
	}
	resp, doc := b.Do(t, "POST", "/space", url.Values{"name": {"From the UI"}, "namespace": {"red"}, "env": {e.EnvID}}, true)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=space-row]`).Length() != 1 || resp.Header.Get("Vary") == "" {
		t.Fatalf("htmx create: got %d, want one row partial with Vary", resp.StatusCode)
	}
	id := strings.TrimPrefix(doc.Find(`tr`).AttrOr("id", ""), "space-")
	resp, doc = b.Do(t, "POST", "/space", url.Values{"name": {"x"}, "namespace": {"blue"}, "env": {e.EnvID}}, true)
	if resp.StatusCode != http.StatusBadRequest || doc.Find(`[data-testid=error-alert]`).Length() != 1 {
		t.Fatalf("unknown namespace: got %d, want 400 with an alert partial", resp.StatusCode)
	}
	resp, _ = b.Do(t, "POST", "/space", url.Values{"name": {"  "}, "env": {e.EnvID}}, true)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("blank name: got %d, want 400", resp.StatusCode)
	}
	_, doc = b.Do(t, "POST", "/space/"+id+"/archive", url.Values{}, true)
	if doc.Find(`[data-testid=archived-badge]`).Length() != 1 || doc.Find(`[data-testid=unarchive]`).Length() != 1 {
		t.Fatal("archive: want the row back with the archived badge and an unarchive button")
	}
	_, doc = b.Do(t, "GET", "/", nil, false)
	if doc.Find(`[data-testid=space-row]`).Length() != 0 {
		t.Fatal("archived spaces are hidden unless asked for")
	}
	_, doc = b.Do(t, "GET", "/?archived=1", nil, false)
	if doc.Find(`[data-testid=space-row]`).Length() != 1 {
		t.Fatal("show archived: want the archived space")
	}
	_, doc = b.Do(t, "POST", "/space/"+id+"/unarchive", url.Values{}, true)
	if doc.Find(`[data-testid=archive]`).Length() != 1 {
		t.Fatal("unarchive: want the row back with an archive button")
	}
	topics := e.Topics(t, "&spaceId="+id+"&domain=space")
	if strings.Join(topics, ",") != "space:created,space:archived,space:unarchived" {
		t.Fatalf("got events %v", topics)
	}
	e.MustCall(t, "POST", "/v1/spaces/"+id+"/documents", webtest.Secret, map[string]any{"title": "Read me first", "body": "# Hi"})
	resp, doc = b.Do(t, "GET", "/space/"+id, nil, false)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=space-title]`).Text() != "From the UI" {
		t.Fatalf("space page: got %d", resp.StatusCode)
	}
	if got := doc.Find(`[data-testid=documents] li`).Text(); got != "Read me first" {
		t.Fatalf("space page documents: got %q, want the document's title", got)
	}
}

func TestNotFoundPages(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	for _, path := range []string{"/space/us_sp_nope", "/no/such/page"} {
		resp, doc := b.Do(t, "GET", path, nil, false)
		if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid=error-page]`).Length() != 1 {
			t.Errorf("%s: got %d, want the 404 page", path, resp.StatusCode)
		}
	}
	resp, doc := b.Do(t, "POST", "/space/us_sp_nope/archive", url.Values{}, true)
	if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid=error-alert]`).Length() != 1 {
		t.Fatalf("htmx 404: got %d, want an alert partial", resp.StatusCode)
	}
}

func TestGermanPages(t *testing.T) {
	e := webtest.NewAPI(t)
	req := httptest.NewRequest("GET", "/login", nil)
	req.Header.Set("Accept-Language", "de-DE,de;q=0.9")
	resp, _ := e.App.Test(req, -1)
	doc, _ := goquery.NewDocumentFromReader(resp.Body)
	if got := doc.Find("h1").Text(); got != "Bei Sluice anmelden" {
		t.Fatalf("got heading %q, want the German one", got)
	}
}

func TestLocalesAreComplete(t *testing.T) {
	load := func(lang string) map[string]string {
		m := map[string]string{}
		for _, f := range locales.Files(lang) {
			b, err := locales.FS.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			part := map[string]any{}
			if err := toml.Unmarshal(b, &part); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for id, v := range part {
				if _, dup := m[id]; dup {
					t.Errorf("%s: %q is defined in two files of %s", f, id, lang)
				}
				switch v := v.(type) {
				case string:
					m[id] = v
				case map[string]any: // plural forms: "other" is the one every language has
					if m[id], _ = v["other"].(string); m[id] == "" {
						t.Errorf("%s: %q has plural forms but no other", f, id)
					}
				default:
					t.Errorf("%s: %q is %T", f, id, v)
				}
			}
		}
		return m
	}
	en := load("en")
	used := map[string]bool{}
	for _, dir := range []string{"../../views", ".", "../../web"} {
		for _, f := range webtest.MustGlob(t, dir+"/*.templ", dir+"/*.go") {
			if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
				continue
			}
			for _, m := range webtest.MsgID.FindAllStringSubmatch(webtest.MustRead(t, f), -1) {
				used[m[1]+m[2]] = true
			}
		}
	}
	for id := range used {
		if _, ok := en[id]; !ok {
			t.Errorf("message %q is used but missing in locales/en", id)
		}
	}
	for _, lang := range locales.Languages {
		m := load(lang)
		for id := range en {
			if strings.TrimSpace(m[id]) == "" {
				t.Errorf("locales/%s lacks %q", lang, id)
			}
		}
		for id := range m {
			if _, ok := en[id]; !ok {
				t.Errorf("locales/%s has %q, which locales/en does not", lang, id)
			}
		}
	}
}

// TestEveryLanguageRenders opens the login page and the spaces page in every language of
// locales/: the page is tagged with the language's BCP 47 tag and shows that language's
// own words (so a file go-i18n cannot match to its language fails here).
func TestEveryLanguageRenders(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	for _, lang := range locales.Languages {
		var want struct {
			Title  string `toml:"spaces.title"`
			Create string `toml:"spaces.create"`
		}
		if _, err := toml.Decode(webtest.MustRead(t, "../../locales/"+lang+"/core.toml"), &want); err != nil {
			t.Fatal(err)
		}
		b.Cookies["lang"] = lang
		_, doc := b.Do(t, "GET", "/", nil, false)
		if tag, _ := doc.Find("html").Attr("lang"); tag != locales.BCP47(lang) {
			t.Errorf("%s: html lang %q, want %q", lang, tag, locales.BCP47(lang))
		}
		if got := strings.TrimSpace(doc.Find("h1").First().Text()); got != want.Title {
			t.Errorf("%s: spaces page heading %q, want %q", lang, got, want.Title)
		}
		if !strings.Contains(doc.Find(`[data-testid=create-space]`).Text(), want.Create) {
			t.Errorf("%s: create button %q, want %q", lang, doc.Find(`[data-testid=create-space]`).Text(), want.Create)
		}
		if sel, _ := doc.Find(`option[value="` + lang + `"]`).Attr("selected"); sel != "selected" && !doc.Find(`option[value="`+lang+`"][selected]`).Is("option") {
			t.Errorf("%s: not the selected language of the menu", lang)
		}
	}
}

func TestSheetGridPage(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "grid"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{map[string]any{"name": "People", "fields": []any{
		map[string]any{"key": "email", "type": "string", "label": "Email", "constraints": []any{map[string]any{"type": "unique"}}},
		map[string]any{"key": "age", "type": "number", "label": "Age"}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{
		map[string]any{"email": map[string]any{"value": "a@x.io"}, "age": map[string]any{"value": 31}},
		map[string]any{"email": map[string]any{"value": "b@x.io"}, "age": map[string]any{"value": "old"}},
		map[string]any{"email": map[string]any{"value": "c@x.io"}},
	})
	b := webtest.LoggedIn(t, e)
	base := "/space/" + sp["id"].(string) + "/sheet/" + sheet
	_, doc := b.Do(t, "GET", base, nil, false)
	if n := doc.Find(`[data-testid=grid-row]`).Length(); n != 3 {
		t.Fatalf("all: got %d rows, want 3", n)
	}
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid=tab-error]`).Text()), " "); got != "Errors 1" {
		t.Fatalf("error tab: got %q, want the count 1", got)
	}
	_, doc = b.Do(t, "GET", base+"?filter=error", nil, false)
	rows := doc.Find(`[data-testid=grid-row]`)
	if rows.Length() != 1 || !strings.Contains(rows.Text(), "old") {
		t.Fatalf("error filter: got %q", rows.Text())
	}
	if msg, _ := rows.Find("td.bg-red-100").Attr("title"); msg == "" {
		t.Fatal("the invalid cell carries no message")
	}
	// Edit the invalid cell in place: the editor, then the saved and revalidated cell.
	recs := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/records?filter=error", webtest.Secret, nil))["records"].([]any)
	cellURL := base + "/cell/" + recs[0].(map[string]any)["id"].(string) + "/age"
	_, doc = b.Do(t, "GET", cellURL+"/edit", nil, true)
	if v, _ := doc.Find(`[data-testid=grid-cell-input]`).Attr("value"); v != "old" {
		t.Fatalf("editor: got value %q, want old", v)
	}
	resp, doc := b.Do(t, "POST", cellURL, url.Values{"value": {"44"}}, true)
	if resp.StatusCode != 200 || strings.TrimSpace(doc.Find(`[data-testid=grid-cell]`).Text()) != "44" || doc.Find("td.bg-red-100").Length() != 0 {
		t.Fatalf("save: got %d %q, want the fixed value without an error", resp.StatusCode, doc.Find("td").Text())
	}
	// With the save comes what it changed around the cell, for grid.js to apply: the record's
	// state, the tab counts and every column's error count.
	var saved struct {
		Event struct {
			Record       string
			Valid        bool
			Refresh      bool
			Counts       map[string]int64
			ColumnErrors map[string]int64
		} `json:"sl-cell-saved"`
	}
	if err := json.Unmarshal([]byte(resp.Header.Get("HX-Trigger")), &saved); err != nil {
		t.Fatalf("HX-Trigger %q: %v", resp.Header.Get("HX-Trigger"), err)
	}
	if ev := saved.Event; ev.Record == "" || !ev.Valid || ev.Refresh || ev.Counts["error"] != 0 || ev.Counts["valid"] != 3 || ev.Counts["all"] != 3 || ev.ColumnErrors["age"] != 0 || len(ev.ColumnErrors) != 2 {
		t.Errorf("sl-cell-saved: %+v", ev)
	}
	if c := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet+"/counts", webtest.Secret, nil))["counts"].(map[string]any); c["error"] != 0.0 {
		t.Fatalf("counts after the fix: %v, want no errors", c)
	}
	// A save of the unique e-mail asks the page to fetch its rows again (a twin may change),
	// and ?partial=rows answers with just the rows.
	emailURL := base + "/cell/" + recs[0].(map[string]any)["id"].(string) + "/email"
	if resp, _ := b.Do(t, "POST", emailURL, url.Values{"value": {"b2@x.io"}}, true); !strings.Contains(resp.Header.Get("HX-Trigger"), `"refresh":true`) {
		t.Errorf("saving a unique field: HX-Trigger %q asks no refresh", resp.Header.Get("HX-Trigger"))
	}
	// (Outside a table the HTML parser drops tbody, tr and td; each row's flag stays.)
	if _, rows := b.Do(t, "GET", base+"?partial=rows", nil, true); rows.Find("[data-testid=row-flag]").Length() != 3 || rows.Find("header, h1, thead").Length() != 0 {
		t.Errorf("partial=rows: %d rows, %d page parts", rows.Find("[data-testid=row-flag]").Length(), rows.Find("header, h1, thead").Length())
	}
	resp, _ = b.Do(t, "POST", cellURL, url.Values{"value": {"still old"}}, true)
	if resp.StatusCode != 200 {
		t.Fatalf("a bad value is stored and flagged, not refused: got %d", resp.StatusCode)
	}
	_, doc = b.Do(t, "GET", base+"?search=c%40x", nil, false)
	if n := doc.Find(`[data-testid=grid-row]`).Length(); n != 1 {
		t.Fatalf("search: got %d rows, want 1", n)
	}
	_, doc = b.Do(t, "GET", "/space/"+sp["id"].(string), nil, false)
	if href, _ := doc.Find(`[data-testid=sheet-link]`).Attr("href"); href != base {
		t.Fatalf("space page sheet link: got %q, want %q", href, base)
	}
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other"})
	if resp, _ := b.Do(t, "GET", "/space/"+other["id"].(string)+"/sheet/"+sheet, nil, false); resp.StatusCode != 404 {
		t.Fatalf("sheet through another space: got %d, want 404", resp.StatusCode)
	}
}

func TestGuestLinkOpensOnlyItsSpace(t *testing.T) {
	e := webtest.NewAPI(t)
	a := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Shared with Pat"})
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "Internal"})
	g := webtest.ListOf(e.MustCall(t, "POST", "/v1/guests", webtest.Secret, []any{map[string]any{"environmentId": e.EnvID, "email": "pat@partner.io", "name": "Pat", "spaces": []any{map[string]any{"id": a["id"]}}}}))[0].(map[string]any)
	tok := webtest.DataOf(e.MustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+a["id"].(string), webtest.Secret, nil))
	link, _ := url.Parse(tok["url"].(string))
	b := &webtest.BrowserSession{E: e, Cookies: map[string]string{}}
	resp, _ := b.Do(t, "GET", link.RequestURI(), nil, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/space/"+a["id"].(string) {
		t.Fatalf("guest link: got %d to %q, want a redirect to the space without the token", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, doc := b.Do(t, "GET", "/space/"+a["id"].(string), nil, false)
	if resp.StatusCode != 200 || doc.Find(`[data-testid=space-title]`).Text() != "Shared with Pat" || doc.Find(`[data-testid=user-email]`).Text() != "pat@partner.io" {
		t.Fatalf("guest on their space: got %d", resp.StatusCode)
	}
	if resp, _ := b.Do(t, "GET", "/space/"+other["id"].(string), nil, false); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("guest on another space: got %d, want 404", resp.StatusCode)
	}
	if resp, _ := b.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/space/"+a["id"].(string) {
		t.Fatalf("guest on the spaces list: got %d to %q, want their space", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := b.Do(t, "POST", "/space", url.Values{"name": {"x"}}, true); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("guest creating a space: got %d, want 403", resp.StatusCode)
	}
	e.MustCall(t, "DELETE", "/v1/guests/"+g["id"].(string)+"?spaceId="+a["id"].(string), webtest.Secret, nil)
	if resp, _ := b.Do(t, "GET", "/space/"+a["id"].(string), nil, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the grant was removed: got %d, want a redirect to log in", resp.StatusCode)
	}
}

// TestPluralForms counts records in each language's plural forms (go-i18n's CLDR rules):
// one record, 2 rekordy but 5 rekordów in Polish, no plural in Japanese.
func TestPluralForms(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sheetID := e.MustCreateRecordSheet(t, `[{"key":"name","type":"string"}]`)
	b := webtest.LoggedIn(t, e)
	add := func(n int) {
		var recs []any
		for range n {
			recs = append(recs, map[string]any{"name": map[string]any{"value": "x"}})
		}
		e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, recs)
	}
	check := func(want map[string]string) {
		t.Helper()
		for lang, w := range want {
			b.Cookies["lang"] = lang
			_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID, nil, false)
			if got := strings.Join(strings.Fields(doc.Find(`[data-testid=grid-count]`).Text()), " "); got != w {
				t.Errorf("%s: %q, want %q", lang, got, w)
			}
		}
	}
	add(1)
	check(map[string]string{"en": "1 record", "de": "1 Datensatz", "pl": "1 rekord", "fr": "1 enregistrement"})
	add(1)
	check(map[string]string{"en": "2 records", "pl": "2 rekordy", "jp": "2 件のレコード"})
	add(3)
	check(map[string]string{"pl": "5 rekordów", "de": "5 Datensätze"})
	// Notices too: one row, 2 wiersze, 5 wierszy.
	for _, c := range []struct{ lang, notice, want string }{
		{"en", "deleted:1", "Deleted 1 row."}, {"en", "deleted:3", "Deleted 3 rows."},
		{"pl", "deleted:2", "Usunięto 2 wiersze."}, {"pl", "deleted:5", "Usunięto 5 wierszy."}, {"fr", "cleared:1", "1 cellule vidée."},
	} {
		b.Cookies["lang"] = c.lang
		_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheetID+"?notice="+c.notice, nil, false)
		if got := doc.Find(`[data-testid=grid-notice]`).Text(); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.lang, c.notice, got, c.want)
		}
	}
}

// A space made in the dashboard of an environment without agents gets no configure job that
// would only wait and fail (and no empty-space dialog); with an agent it is configured as
// Flatfile's are.
func TestDashboardSpacesConfigureOnlyWithAnAgent(t *testing.T) {
	e := webtest.NewAPI(t)
	b := webtest.LoggedIn(t, e)
	configureJobs := func(name string) int {
		for _, s := range webtest.ListOf(e.MustCall(t, "GET", "/v1/spaces?pageSize=100", webtest.Secret, nil)) {
			if sm := s.(map[string]any); sm["name"] == name {
				n := 0
				for _, j := range webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+sm["id"].(string), webtest.Secret, nil)) {
					if j.(map[string]any)["operation"] == "configure" {
						n++
					}
				}
				return n
			}
		}
		t.Fatalf("no space %q", name)
		return 0
	}
	if resp, _ := b.Do(t, "POST", "/space", url.Values{"name": {"No agent"}, "env": {e.EnvID}}, true); resp.StatusCode != 200 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	if n := configureJobs("No agent"); n != 0 {
		t.Errorf("without agents: %d configure jobs, want none", n)
	}
	e.MustCall(t, "POST", "/v1/agents?environmentId="+e.EnvID, webtest.Secret, map[string]any{"topics": []string{"space:configure"}, "compiler": "js", "source": "x", "slug": "cfg"})
	if resp, _ := b.Do(t, "POST", "/space", url.Values{"name": {"With agent"}, "env": {e.EnvID}}, true); resp.StatusCode != 200 {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	if n := configureJobs("With agent"); n != 1 {
		t.Errorf("with an agent: %d configure jobs, want 1", n)
	}
}
