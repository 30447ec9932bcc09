package store

import (
	"encoding/json"
)

// jsonText encodes v for a JSON column; nil slices become [] and nil raw messages {}.
func jsonText(v any) string {
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

// rawOr returns s as raw JSON, or def when s is empty.
func rawOr(s, def string) json.RawMessage {
	if s == "" {
		return json.RawMessage(def)
	}
	return json.RawMessage(s)
}

// strings decodes a JSON array of strings, empty on error.
func stringList(s string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []string{}
	}
	return out
}

// boolInt stores a bool as 0/1.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
