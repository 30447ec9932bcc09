package webtest

import (
	"testing"
)

func (e *Env) MustCreateWorkbook(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	return DataOf(e.MustCall(t, "POST", "/v1/workbooks", Secret, body))
}

func ContactsSheet() map[string]any {
	return map[string]any{"name": "Contacts", "slug": "contacts", "fields": []any{
		map[string]any{"key": "email", "type": "string", "label": "Email", "constraints": []any{map[string]any{"type": "unique"}}},
		map[string]any{"key": "name", "type": "string"},
		map[string]any{"key": "status", "type": "enum"},
	}}
}
