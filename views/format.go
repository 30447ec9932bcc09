package views

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// statusClass colours a file status badge.
func statusClass(status string) string {
	switch status {
	case "complete":
		return "bg-emerald-100 text-emerald-800"
	case "failed":
		return "bg-red-100 text-red-800"
	}
	return "bg-sky-100 text-sky-800"
}

// busy reports whether any file is still being extracted.
func busy(files []FileItem) bool {
	for _, f := range files {
		if f.Status != "complete" && f.Status != "failed" {
			return true
		}
	}
	return false
}

func urlQuery(s string) string { return url.QueryEscape(s) }

// confidenceClass colours a confidence badge: sure, likely, or a guess.
func confidenceClass(pct int) string {
	switch {
	case pct >= 90:
		return "bg-emerald-100 text-emerald-800"
	case pct >= 60:
		return "bg-amber-100 text-amber-800"
	}
	return "bg-slate-100 text-slate-700"
}

// joinSamples shows a column's sample values on one line.
func joinSamples(s []string) string { return strings.Join(s, " · ") }

// firstReasons keeps a suggestion's explanation short.
func firstReasons(r []string) []string {
	if len(r) > 2 {
		return r[:2]
	}
	return r
}

func compactParam(compact bool) string {
	if compact {
		return "&compact=1"
	}
	return ""
}

// actionVals is the hx-vals of an action button without a dialog.
func actionVals(target, operation string) string {
	b, _ := json.Marshal(map[string]string{"target": target, "operation": operation})
	return string(b)
}

func modeVals(mode string) string {
	b, _ := json.Marshal(map[string]string{"mode": mode})
	return string(b)
}

// joinLines puts the non-empty strings of s on lines of their own.
func joinLines(s []string) string {
	var lines []string
	for _, l := range s {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func ariaCurrent(on bool) string {
	if on {
		return "page"
	}
	return "false"
}

// ffqlQuote writes a key or value as an FFQL string.
func ffqlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ffqlEq is the filter-by-value query of one column.
func ffqlEq(key, value string) string { return ffqlQuote(key) + " eq " + ffqlQuote(value) }

// ffqlIs is the advanced filter on a column's validation state (error or valid).
func ffqlIs(key, state string) string { return ffqlQuote(key) + " is " + state }

func hasOption(opts []ImportOption, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

// lineCount sizes a cell's text area to its text (1 to 6 lines).
func lineCount(s string) int { return min(6, max(1, strings.Count(s, "\n")+1)) }

func spaceVals(spaceID string) string {
	b, _ := json.Marshal(map[string]string{"space": spaceID})
	return string(b)
}

// placeholderFor is an example value for a theme key, after the kind of CSS value it takes.
func placeholderFor(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.Contains(k, "color"):
		return "#2563eb"
	case strings.Contains(k, "fontfamily"):
		return "Inter, sans-serif"
	case strings.Contains(k, "boxshadow"):
		return "0 0 0 2px #2563eb"
	case strings.HasSuffix(k, "border"):
		return "1px solid #e2e8f0"
	}
	return "4px"
}

func keyVals(typ, env string) string {
	b, _ := json.Marshal(map[string]string{"type": typ, "env": env})
	return string(b)
}

// statusLabel is a file's or job's status in the page's language (the raw status when the
// locales have no word for it).
func statusLabel(ctx context.Context, status string) string {
	if s := T(ctx, "status."+status); s != "status."+status {
		return s
	}
	return status
}

// matchingText is the grid's count of matching records in the page's language: "10,000+"
// when counting stopped.
func matchingText(ctx context.Context, p SheetProps) string {
	if p.MoreThan {
		return Count(ctx, p.Matching) + "+"
	}
	return Count(ctx, p.Matching)
}

// formatLabel names a reading: DMY → "day/month/year", "," → "decimal comma (1.234,56)".
func formatLabel(ctx context.Context, f string) string {
	switch f {
	case "DMY":
		return T(ctx, "map.format_dmy")
	case "MDY":
		return T(ctx, "map.format_mdy")
	case "YMD":
		return T(ctx, "map.format_ymd")
	case "serial":
		return T(ctx, "map.format_serial")
	case ".":
		return T(ctx, "map.format_point")
	case ",":
		return T(ctx, "map.format_comma")
	}
	return f
}

func boolText(b bool) string { return strconv.FormatBool(b) }
