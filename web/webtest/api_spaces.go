package webtest

import (
	"slices"
)

func Names(list []any) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.(map[string]any)["name"].(string))
	}
	slices.Sort(out)
	return out
}
