// Package markup renders the Markdown or HTML that documents, field descriptions and action
// guides carry: goldmark (GitHub-flavoured Markdown, raw HTML allowed through) and then
// bluemonday's user-content policy, so scripts, event handlers, styles and javascript: links
// never reach a page; links to other sites open in a new tab with noopener noreferrer.
// Documents may hold <embed type="embedded-sheet" name sheetId workbookId defaultExpanded>
// elements; Parts splits a body around them so a page can render live sheets in their place.
package markup

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

var (
	md = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

	policyOnce sync.Once
	policy     *bluemonday.Policy
)

func sanitizer() *bluemonday.Policy {
	policyOnce.Do(func() {
		policy = bluemonday.UGCPolicy()
		policy.RequireNoReferrerOnLinks(true)
		policy.AddTargetBlankToFullyQualifiedLinks(true)
	})
	return policy
}

// HTML renders Markdown (or HTML) as sanitized HTML.
func HTML(src string) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return sanitizer().Sanitize(src)
	}
	return sanitizer().Sanitize(buf.String())
}

// Embed is an embedded sheet of a document.
type Embed struct {
	Name, SheetID, WorkbookID string
	DefaultExpanded           bool
}

// Part is a run of sanitized HTML, or an embedded sheet.
type Part struct {
	HTML  string
	Embed *Embed
}

var (
	embedTag = regexp.MustCompile(`(?is)<embed\b([^>]*)/?>(\s*</embed>)?`)
	attr     = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))`)
	marker   = regexp.MustCompile(`(?:<p>)?SLUICEEMBED(\d+)X(?:</p>)?`)
)

// Parts renders a document body, splitting it around its embedded sheets (other embed
// types are dropped).
func Parts(src string) []Part {
	var embeds []*Embed
	src = embedTag.ReplaceAllStringFunc(src, func(tag string) string {
		a := map[string]string{}
		for _, m := range attr.FindAllStringSubmatch(embedTag.FindStringSubmatch(tag)[1], -1) {
			a[strings.ToLower(m[1])] = m[2] + m[3] + m[4]
		}
		if a["type"] != "embedded-sheet" || a["sheetid"] == "" {
			return ""
		}
		embeds = append(embeds, &Embed{Name: a["name"], SheetID: a["sheetid"], WorkbookID: a["workbookid"], DefaultExpanded: a["defaultexpanded"] == "true"})
		return fmt.Sprintf("\n\nSLUICEEMBED%dX\n\n", len(embeds)-1)
	})
	out := HTML(src)
	var parts []Part
	last := 0
	for _, m := range marker.FindAllStringSubmatchIndex(out, -1) {
		var n int
		if _, err := fmt.Sscan(out[m[2]:m[3]], &n); err != nil || n >= len(embeds) {
			continue
		}
		if h := strings.TrimSpace(out[last:m[0]]); h != "" {
			parts = append(parts, Part{HTML: h})
		}
		parts = append(parts, Part{Embed: embeds[n]})
		last = m[1]
	}
	if h := strings.TrimSpace(out[last:]); h != "" {
		parts = append(parts, Part{HTML: h})
	}
	return parts
}
