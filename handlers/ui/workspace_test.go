package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/PuerkitoBio/goquery"
)

func TestWorkspaceSidebarAndDocuments(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "workspace"})
	spaceID := sp["id"].(string)
	b := webtest.LoggedIn(t, e)

	// An empty space whose space:configure job nobody acknowledged: the dialog after 10 s.
	_, doc := b.Do(t, "GET", "/space/"+spaceID, nil, false)
	if doc.Find(`[data-testid=empty-space-dialog]`).Length() != 0 {
		t.Error("the empty-space dialog showed before 10 s")
	}
	e.Now = e.Now.Add(11 * time.Second)
	_, doc = b.Do(t, "GET", "/space/"+spaceID, nil, false)
	if doc.Find(`[data-testid=empty-space-dialog]`).Length() != 1 {
		t.Error("no empty-space dialog after 10 s without an acknowledged configure job")
	}
	acked := e.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "configured"})
	for _, j := range webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+acked["id"].(string), webtest.Secret, nil)) {
		if j.(map[string]any)["operation"] == "configure" {
			e.MustCall(t, "POST", "/v1/jobs/"+j.(map[string]any)["id"].(string)+"/ack", webtest.Secret, map[string]any{})
		}
	}
	e.Now = e.Now.Add(11 * time.Second)
	if _, doc := b.Do(t, "GET", "/space/"+acked["id"].(string), nil, false); doc.Find(`[data-testid=empty-space-dialog]`).Length() != 0 {
		t.Error("the dialog showed although an agent acknowledged the configure job")
	}

	wb := e.MustCreateWorkbook(t, map[string]any{"name": "CRM", "spaceId": spaceID, "settings": map[string]any{"sheetSidebarOrder": []any{"deals"}},
		"sheets": []any{
			map[string]any{"name": "Contacts", "slug": "contacts", "fields": []any{map[string]any{"key": "email", "type": "string", "label": "Email"}}},
			map[string]any{"name": "Companies", "slug": "companies", "fields": []any{map[string]any{"key": "name", "type": "string"}}},
			map[string]any{"name": "Deals", "slug": "deals", "fields": []any{map[string]any{"key": "name", "type": "string"}}}}})
	sheets := wb["sheets"].([]any)
	contacts := sheets[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+contacts+"/records", webtest.Secret, []any{map[string]any{"email": map[string]any{"value": "ann@x.io"}}})
	body := "# Welcome\n\nCheck the [handbook](https://handbook.example.com) and <a href=\"javascript:alert(1)\">this</a>.\n\n<script>alert(1)</script>\n\n" +
		`<embed type="embedded-sheet" name="Your contacts" defaultExpanded="true" sheetId="` + contacts + `" workbookId="` + wb["id"].(string) + `">`
	doc1 := webtest.DataOf(e.MustCall(t, "POST", "/v1/spaces/"+spaceID+"/documents", webtest.Secret, map[string]any{"title": "Getting started", "body": body}))
	e.MustCall(t, "POST", "/v1/spaces/"+spaceID+"/documents", webtest.Secret, map[string]any{"title": "Read me first", "body": "**Before you start**", "treatments": []any{"ephemeral"}})

	_, doc = b.Do(t, "GET", "/space/"+spaceID, nil, false)
	var order []string
	doc.Find(`[data-testid=sidebar-sheet]`).Each(func(_ int, s *goquery.Selection) { order = append(order, s.Text()) })
	if strings.Join(order, ",") != "Deals,Contacts,Companies" {
		t.Errorf("sidebar sheets: got %v, want Deals first (sheetSidebarOrder), then the rest in order", order)
	}
	if got := doc.Find(`[data-testid=sidebar-document]`).Text(); got != "Getting started" {
		t.Errorf("sidebar documents: got %q, want the ephemeral one hidden", got)
	}
	if doc.Find(`[data-testid=ephemeral-document]`).Length() != 1 || !strings.Contains(doc.Find(`[data-testid=ephemeral-document]`).Text(), "Before you start") {
		t.Error("the ephemeral document is not shown over the space page")
	}
	if doc.Find(`[data-testid=space-info]`).Length() != 1 || doc.Find(`[data-testid=empty-space-dialog]`).Length() != 0 {
		t.Error("space info missing, or the empty dialog shown for a space with a workbook")
	}

	_, doc = b.Do(t, "GET", "/space/"+spaceID+"/document/"+doc1["id"].(string), nil, false)
	art := doc.Find(`[data-testid=document-body]`)
	html, _ := art.Html()
	if strings.Contains(html, "<script") || strings.Contains(html, "javascript:") {
		t.Errorf("document not sanitized: %s", html)
	}
	if link := art.Find(`a[href="https://handbook.example.com"]`); link.AttrOr("target", "") != "_blank" || !strings.Contains(link.AttrOr("rel", ""), "noopener") {
		t.Errorf("external link: %s", html)
	}
	embed := art.Find(`[data-testid=document-embed]`)
	if _, open := embed.Attr("open"); !open || !strings.Contains(embed.Text(), "Your contacts") {
		t.Fatalf("embed: %s", html)
	}
	src, _ := embed.Find(`[hx-get]`).Attr("hx-get")
	_, part := b.Do(t, "GET", src, nil, true)
	if !strings.Contains(part.Find(`[data-testid=sheet-embed]`).Text(), "ann@x.io") {
		t.Errorf("embedded sheet: got %q", part.Text())
	}
	if doc.Find(`[data-testid=action-slot]`).Length() != 1 {
		t.Error("the document page has no action bar")
	}

	// The environment's showSpaceInfo false hides the space info.
	jwt := webtest.JwtFor(t, e)
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, jwt, map[string]any{"metadata": map[string]any{"showSpaceInfo": false}})
	if _, doc := b.Do(t, "GET", "/space/"+spaceID, nil, false); doc.Find(`[data-testid=space-info]`).Length() != 0 {
		t.Error("space info shown although showSpaceInfo is false")
	}
}
