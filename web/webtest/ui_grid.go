package webtest

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// GridTexts is the text of one column of the grid's rows.
func GridTexts(doc *goquery.Document, key string) []string {
	var out []string
	doc.Find(`[data-testid=grid-row] td[data-key="` + key + `"]`).Each(func(_ int, s *goquery.Selection) { out = append(out, strings.TrimSpace(s.Text())) })
	return out
}
