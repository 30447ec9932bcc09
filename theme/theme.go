// Package theme turns a space's metadata.theme into CSS custom properties, every key of the
// spec's theme.root and theme.table groups, and drops every value that is not plainly the
// kind of CSS value its key takes, so a theme can never inject CSS or HTML.
//
// Names: theme.root.<key> becomes --sl-<kebab key> (borderColor → --sl-border-color);
// theme.table.<path> becomes --sl-table-<kebab path> (cell.active.borderWidth →
// --sl-table-cell-active-border-width; lookupEditor.option.borderRadius.hover →
// --sl-table-lookup-editor-option-border-radius-hover). Keys may be nested objects (as
// Flatfile's SDK sends them) or dotted names. static/css/input.css uses the variables with
// the default look as fallback:
//
//	--sl-border-color                   cards, tables and menus
//	--sl-modal-border-radius            dialogs
//	--sl-popover-border-radius, --sl-popover-background-color  menus (.sl-popover)
//	--sl-tabstrip-*                     the record tabs (.sl-tab, .sl-tab-active)
//	--sl-tooltip-background-color       tooltips ([role=tooltip])
//	--sl-badge-border-color, --sl-badge-border-radius, --sl-pill-border-radius  badges
//	--sl-interactive-border-color, --sl-interactive-border-radius  inputs and secondary buttons
//	--sl-checkbox-border-color, --sl-checkbox-border-radius      checkboxes
//	--sl-table-*                        the grid (active cell, header font, filters, pills)
package theme

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// kind says what a value may look like.
type kind int

const (
	color kind = iota
	length
	shadow
	border
	font
)

// Keys of theme.root and theme.table with the kind of their values (the spec's Theme keys).
var rootKeys = map[string]kind{
	"borderColor": color, "modalBorderRadius": length, "popoverBorderRadius": length, "tabstripActiveColor": color,
	"tabstripInactiveColor": color, "popoverBackgroundColor": color, "tabstripHoverTextColor": color,
	"tooltipBackgroundColor": color, "tabstripHoverBorderColor": color, "badgeBorderColor": color,
	"interactiveBorderColor": color, "interactiveBorderRadius": length, "checkboxBorderRadius": length,
	"checkboxBorderColor": color, "pillBorderRadius": length, "badgeBorderRadius": length,
}

var tableKeys = map[string]kind{
	"cell.active.borderWidth": length, "cell.active.boxShadow": shadow, "tooltip.borderRadius": length,
	"lookupEditor.option.borderRadius.hover": length, "lookupEditor.option.borderRadius.active": length,
	"lookupEditor.option.backgroundColor.hover": color, "lookupEditor.option.backgroundColor.active": color,
	"inputs.checkbox.borderColor": color, "buttons.pill.color": color, "buttons.pill.backgroundColor": color,
	"buttons.iconColor": color, "filters.outerBorder": border, "filters.innerBorderRadius": length,
	"filters.outerBorderRadius": length, "column.header.fontFamily": font,
}

// Keys lists every variable a theme can set, sorted (for documentation and tests).
func Keys() []string {
	var out []string
	for k := range rootKeys {
		out = append(out, "root."+k)
	}
	for k := range tableKeys {
		out = append(out, "table."+k)
	}
	sort.Strings(out)
	return out
}

var (
	hexColor   = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)
	fnColor    = regexp.MustCompile(`^(?:rgb|rgba|hsl|hsla)\(\s*[0-9.]+%?(?:\s*[,/ ]\s*[0-9.]+%?){2,3}\s*\)$`)
	namedColor = regexp.MustCompile(`^[a-zA-Z]{3,20}$`)
	oneLength  = `(?:0|[0-9]{1,4}(?:\.[0-9]{1,3})?(?:px|rem|em|%))`
	lengths    = regexp.MustCompile(`^` + oneLength + `(?:\s+` + oneLength + `){0,3}$`)
	oneLen     = regexp.MustCompile(`^` + oneLength + `$`)
	fontList   = regexp.MustCompile(`^[a-zA-Z0-9 ,'"-]{1,120}$`)
	styles     = map[string]bool{"none": true, "solid": true, "dashed": true, "dotted": true, "double": true, "groove": true, "ridge": true, "inset": true, "outset": true}
)

func isColor(v string) bool {
	return hexColor.MatchString(v) || fnColor.MatchString(v) || namedColor.MatchString(v)
}

// valid checks a value against its kind.
func valid(k kind, v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 160 {
		return false
	}
	switch k {
	case color:
		return isColor(v)
	case length:
		return lengths.MatchString(v)
	case font:
		return fontList.MatchString(v) && strings.Count(v, `"`)%2 == 0 && strings.Count(v, "'")%2 == 0
	case border:
		return validBorder(v)
	case shadow:
		return v == "none" || validShadows(v)
	}
	return false
}

// validBorder accepts "width style color" in any order, each at most once.
func validBorder(v string) bool {
	for _, part := range splitTokens(v) {
		if !(lengths.MatchString(part) || styles[part] || isColor(part)) {
			return false
		}
	}
	return true
}

// validShadows accepts comma-separated shadows of lengths, a color and "inset".
func validShadows(v string) bool {
	for _, sh := range splitTop(v, ',') {
		parts := splitTokens(sh)
		if len(parts) < 2 {
			return false
		}
		for _, part := range parts {
			if !(part == "inset" || oneLen.MatchString(part) || isColor(part)) {
				return false
			}
		}
	}
	return true
}

// splitTokens splits on spaces outside parentheses.
func splitTokens(s string) []string { return splitTop(s, ' ') }

func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				if t := strings.TrimSpace(s[start:i]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// Vars returns the theme's valid variables (name → value) and the keys it refused.
func Vars(metadata json.RawMessage) (vars map[string]string, refused []string) {
	vars = map[string]string{}
	var meta struct {
		Theme struct {
			Root  map[string]any `json:"root"`
			Table map[string]any `json:"table"`
		} `json:"theme"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &meta) != nil {
		return vars, nil
	}
	for group, m := range map[string]map[string]any{"root": meta.Theme.Root, "table": meta.Theme.Table} {
		keys := rootKeys
		prefix := "--sl-"
		if group == "table" {
			keys, prefix = tableKeys, "--sl-table-"
		}
		for path, raw := range flatten("", m) {
			k, known := keys[path]
			s, isString := raw.(string)
			if !known || !isString || !valid(k, s) {
				refused = append(refused, group+"."+path)
				continue
			}
			vars[prefix+kebab(path)] = strings.TrimSpace(s)
		}
	}
	sort.Strings(refused)
	return vars, refused
}

// flatten turns nested objects into dotted paths.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			for p, x := range flatten(path, sub) {
				out[p] = x
			}
			continue
		}
		out[path] = v
	}
	return out
}

// kebab writes a dotted camelCase path as a CSS name: cell.active.borderWidth →
// cell-active-border-width.
func kebab(path string) string {
	var b strings.Builder
	for i, r := range path {
		switch {
		case r == '.':
			b.WriteByte('-')
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r + 'a' - 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// VarName is the variable of a key as Keys names it ("root.borderColor" → --sl-border-color).
func VarName(key string) string {
	group, path, _ := strings.Cut(key, ".")
	if group == "table" {
		return "--sl-table-" + kebab(path)
	}
	return "--sl-" + kebab(path)
}

// CSS is the :root rule setting a space's theme variables, "" when it sets none. Its values
// passed the checks above, so it holds no ; { } < > \ or url(.
func CSS(metadata json.RawMessage) string {
	vars, _ := Vars(metadata)
	if len(vars) == 0 {
		return ""
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(":root{")
	for _, n := range names {
		b.WriteString(n + ":" + vars[n] + ";")
	}
	b.WriteString("}")
	return b.String()
}
