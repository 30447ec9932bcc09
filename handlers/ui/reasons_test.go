package ui

import (
	"testing"

	"github.com/sluice/sluice/mapping"
)

// Every reason code the mapping engine may give has a locale key for the wizard.
func TestEveryReasonHasAKey(t *testing.T) {
	for _, code := range mapping.ReasonCodes {
		if reasonKeys[code] == "" {
			t.Errorf("reason %s has no locale key", code)
		}
	}
}
