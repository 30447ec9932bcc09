package markup

import (
	"strings"
	"testing"
)

func TestHTMLIsSanitized(t *testing.T) {
	out := HTML("# Welcome\n\nRead the **guide** at [docs](https://docs.example.com) or [here](/space/x).\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[bad](javascript:alert(1))\n\n<p style=\"color:red\" onclick=\"x()\">styled</p>")
	for _, bad := range []string{"<script", "onerror", "javascript:", "onclick", "style="} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q: %s", bad, out)
		}
	}
	for _, want := range []string{"<h1", "<strong>guide</strong>", `href="https://docs.example.com"`, `target="_blank"`, "noopener", "noreferrer", `href="/space/x"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: %s", want, out)
		}
	}
	if strings.Count(out, `target="_blank"`) != 1 {
		t.Errorf("only the external link opens a new tab: %s", out)
	}
}

func TestPartsSplitsAroundEmbeddedSheets(t *testing.T) {
	parts := Parts("Intro\n\n<embed type=\"embedded-sheet\" name=\"Contacts\" defaultExpanded=\"true\" sheetId=\"us_sh_1\" workbookId=\"us_wb_1\">\n\nMiddle <b>bold</b>\n\n<embed type='embedded-sheet' sheetId='us_sh_2'></embed><embed type=\"video\" src=\"x\">\nEnd")
	if len(parts) != 5 {
		t.Fatalf("got %d parts: %+v", len(parts), parts)
	}
	if e := parts[1].Embed; e == nil || e.Name != "Contacts" || e.SheetID != "us_sh_1" || e.WorkbookID != "us_wb_1" || !e.DefaultExpanded {
		t.Errorf("first embed: %+v", parts[1].Embed)
	}
	if e := parts[3].Embed; e == nil || e.SheetID != "us_sh_2" || e.DefaultExpanded {
		t.Errorf("second embed: %+v", parts[3].Embed)
	}
	if !strings.Contains(parts[0].HTML, "Intro") || !strings.Contains(parts[2].HTML, "<b>bold</b>") || !strings.Contains(parts[4].HTML, "End") {
		t.Errorf("html parts: %+v", parts)
	}
	for _, p := range parts {
		if strings.Contains(p.HTML, "embed") || strings.Contains(p.HTML, "SLUICEEMBED") {
			t.Errorf("a part still holds the embed: %q", p.HTML)
		}
	}
}
