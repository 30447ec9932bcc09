package webtest

import (
	"github.com/sluice/sluice/store"
)

func Keys(m map[string]*store.AuditEntry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
