package mapping_test

import (
	"math"
	"testing"

	"github.com/sluice/sluice/mapping"
)

func TestFamilySimilarity(t *testing.T) {
	crm := []string{"first_name", "last_name", "email", "phone", "postal_code"}
	tests := []struct {
		name     string
		a, b     []string
		min, max float64
	}{
		{"identical", crm, crm, 1, 1},
		{"spelling only differs", crm, []string{"firstName", "LastName", "EMAIL", "phone", "postalCode"}, 1, 1},
		{"same meaning in German and abbreviations", crm, []string{"Vorname", "nachname", "E-Mail", "telefon", "plz"}, 1, 1},
		{"a synonym does not take an exact key's partner", []string{"zip", "postal_code"}, []string{"postal_code"}, 0.5, 0.5},
		{"one extra field", crm, append([]string{"company"}, crm...), 5.0 / 6, 5.0 / 6},
		{"half shared", []string{"a", "b", "c", "d"}, []string{"a", "b", "x", "y"}, 2.0 / 6, 2.0 / 6},
		{"unrelated", crm, []string{"sku", "price", "quantity"}, 0, 0},
		{"duplicates count once", []string{"email", "Email", "e-mail"}, []string{"email"}, 1, 1},
		{"empty", nil, crm, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mapping.FamilySimilarity(tt.a, tt.b)
			if got < tt.min-1e-9 || got > tt.max+1e-9 {
				t.Fatalf("got %.3f, want between %.3f and %.3f", got, tt.min, tt.max)
			}
			if back := mapping.FamilySimilarity(tt.b, tt.a); math.Abs(back-got) > 1e-9 {
				t.Errorf("not symmetric: got %.3f one way and %.3f the other", got, back)
			}
		})
	}
}

func TestFamilyThresholdSeparatesSimilarSheets(t *testing.T) {
	contacts := []string{"first_name", "last_name", "email", "phone", "company", "city", "country"}
	similar := []string{"firstName", "lastName", "email", "mobile", "company", "city", "country"}
	orders := []string{"order_number", "sku", "quantity", "unit_price", "email", "country"}
	if got := mapping.FamilySimilarity(contacts, similar); got < mapping.DefaultFamilyThreshold {
		t.Errorf("a contacts sheet with one field changed: got %.2f, want at least %.2f", got, mapping.DefaultFamilyThreshold)
	}
	if got := mapping.FamilySimilarity(contacts, orders); got >= mapping.DefaultFamilyThreshold {
		t.Errorf("orders against contacts: got %.2f, want below %.2f", got, mapping.DefaultFamilyThreshold)
	}
}
