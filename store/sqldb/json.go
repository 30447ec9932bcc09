package sqldb

import (
	"encoding/json"
)

// JSONText encodes v for a JSON column; nil slices become [] and nil raw messages {}.
func JSONText(v any) string {
	switch x := v.(type) {
	case json.RawMessage:
		if len(x) == 0 || string(x) == "null" {
			return "{}"
		}
		return string(x)
	case []string:
		if x == nil {
			return "[]"
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// RawOr returns s as raw JSON, or def when s is empty.
func RawOr(s, def string) json.RawMessage {
	if s == "" {
		return json.RawMessage(def)
	}
	return json.RawMessage(s)
}

// StringList decodes a JSON array of strings, empty on error.
func StringList(s string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []string{}
	}
	return out
}

// BoolInt stores a bool as 0/1.
func BoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// NonNil is v, or an empty slice for nil (a JSON [] rather than null).
func NonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// Scanner is a row to scan: *sql.Row or *sql.Rows.
type Scanner interface{ Scan(dest ...any) error }
