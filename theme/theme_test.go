package theme

import (
	"strings"
	"testing"
)

func TestVarsAcceptsEveryKey(t *testing.T) {
	meta := `{"theme":{
		"root":{"borderColor":"#d1d5db","modalBorderRadius":"12px","popoverBorderRadius":"8px","tabstripActiveColor":"rgb(37, 99, 235)",
			"tabstripInactiveColor":"slategray","popoverBackgroundColor":"#fff","tabstripHoverTextColor":"hsl(220 90% 40%)",
			"tooltipBackgroundColor":"#111827","tabstripHoverBorderColor":"#93c5fd","badgeBorderColor":"#e5e7eb",
			"interactiveBorderColor":"#9ca3af","interactiveBorderRadius":"6px","checkboxBorderRadius":"4px","checkboxBorderColor":"#6b7280",
			"pillBorderRadius":"999px","badgeBorderRadius":"0.5rem"},
		"table":{"cell":{"active":{"borderWidth":"2px","boxShadow":"0 0 0 2px #2563eb, inset 0 1px 2px rgba(0,0,0,0.2)"}},
			"tooltip":{"borderRadius":"4px"},
			"lookupEditor":{"option":{"borderRadius":{"hover":"4px","active":"6px"},"backgroundColor":{"hover":"#eff6ff","active":"#dbeafe"}}},
			"inputs":{"checkbox":{"borderColor":"#2563eb"}},"buttons":{"pill":{"color":"#1e3a8a","backgroundColor":"#dbeafe"},"iconColor":"#64748b"},
			"filters":{"outerBorder":"1px solid #e5e7eb","innerBorderRadius":"6px","outerBorderRadius":"8px"},
			"column":{"header":{"fontFamily":"'Inter', system-ui, sans-serif"}}}}}`
	vars, refused := Vars([]byte(meta))
	if len(refused) != 0 {
		t.Fatalf("refused %v", refused)
	}
	if len(vars) != len(Keys()) {
		t.Fatalf("got %d variables, want one per key (%d)", len(vars), len(Keys()))
	}
	for name, want := range map[string]string{
		"--sl-border-color":                                   "#d1d5db",
		"--sl-table-cell-active-border-width":                 "2px",
		"--sl-table-lookup-editor-option-border-radius-hover": "4px",
		"--sl-table-column-header-font-family":                "'Inter', system-ui, sans-serif",
	} {
		if vars[name] != want {
			t.Errorf("%s = %q, want %q", name, vars[name], want)
		}
	}
	// Dotted keys work as well as nested objects.
	if v, _ := Vars([]byte(`{"theme":{"table":{"cell.active.borderWidth":"3px"}}}`)); v["--sl-table-cell-active-border-width"] != "3px" {
		t.Errorf("dotted key: got %v", v)
	}
}

func TestVarsRefusesInjection(t *testing.T) {
	for _, bad := range []struct{ key, value string }{
		{"borderColor", "red;} body{display:none"},
		{"borderColor", "red</style><script>alert(1)</script>"},
		{"borderColor", "url(https://evil.example/x.png)"},
		{"borderColor", "expression(alert(1))"},
		{"borderColor", "/* comment */ red"},
		{"borderColor", "var(--other)"},
		{"modalBorderRadius", "12px; color: red"},
		{"modalBorderRadius", "calc(100% - 1px)"},
		{"tooltipBackgroundColor", "#12"},
		{"badgeBorderRadius", "99999999px"},
		{"popoverBackgroundColor", "\\65 xpression"},
	} {
		meta := `{"theme":{"root":{"` + bad.key + `":` + quote(bad.value) + `}}}`
		vars, refused := Vars([]byte(meta))
		if len(vars) != 0 || len(refused) != 1 {
			t.Errorf("%s = %q: got vars %v, want it refused", bad.key, bad.value, vars)
		}
	}
	for _, bad := range []string{`"0 0 2px red; x:y"`, `"url(x) 0 0"`, `"0 0 0 2px #000}"`, `7`} {
		if vars, _ := Vars([]byte(`{"theme":{"table":{"cell":{"active":{"boxShadow":` + bad + `}}}}}`)); len(vars) != 0 {
			t.Errorf("box-shadow %s: got %v, want it refused", bad, vars)
		}
	}
	if vars, refused := Vars([]byte(`{"theme":{"root":{"unknownKey":"#fff"},"table":{"column":{"header":{"fontFamily":"x</style>"}}}}}`)); len(vars) != 0 || len(refused) != 2 {
		t.Errorf("unknown key and a font with < : got %v %v", vars, refused)
	}
}

func TestCSS(t *testing.T) {
	css := CSS([]byte(`{"theme":{"root":{"borderColor":"#123456","badgeBorderRadius":"2px","tabstripActiveColor":"javascript:x"}}}`))
	if css != ":root{--sl-badge-border-radius:2px;--sl-border-color:#123456;}" {
		t.Errorf("got %q", css)
	}
	if CSS(nil) != "" || CSS([]byte(`{}`)) != "" || CSS([]byte(`not json`)) != "" {
		t.Error("no theme should give no CSS")
	}
	for _, c := range []string{"<", ">", "\\", "url("} {
		if strings.Contains(css, c) {
			t.Errorf("CSS holds %q", c)
		}
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
