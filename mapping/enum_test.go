package mapping_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

func enumField(pairs ...string) model.Field {
	return model.Field{Key: "f", Type: model.FieldEnum, Config: &model.FieldConfig{Options: opts(pairs...)}}
}

func TestSuggestEnum(t *testing.T) {
	yesNo := enumField("yes", "Yes", "no", "No")
	status := enumField("active", "Active", "pending", "Pending review", "terminated", "Terminated")
	countries := enumField("DE", "Germany", "US", "United States", "GB", "United Kingdom", "BR", "Brazil")
	states := enumField("CA", "CA", "NY", "NY", "TX", "TX")
	payment := enumField("card", "Credit card", "bank_transfer", "Bank transfer", "invoice", "Invoice")
	employment := enumField("full_time", "Full-time", "part_time", "Part-time")
	tests := []struct {
		name   string
		field  model.Field
		value  string
		want   string
		reason string
	}{
		{"value", status, "active", "active", "equals the option's value"},
		{"label", status, "Pending review", "pending", "equals the option's label"},
		{"case and separators", status, "PENDING-REVIEW", "pending", "apart from case"},
		{"German yes", yesNo, "Ja", "yes", "synonym"},
		{"French yes", yesNo, "oui", "yes", "synonym"},
		{"Spanish yes", yesNo, "Sí", "yes", "synonym"},
		{"Dutch no", yesNo, "nee", "no", "synonym"},
		{"boolean", yesNo, "false", "no", "synonym"},
		{"country name in German", countries, "Deutschland", "DE", "country"},
		{"country alpha-3", countries, "USA", "US", "country"},
		{"country in Portuguese", countries, "Brasil", "BR", "country"},
		{"UK", countries, "UK", "GB", "country"},
		{"US state name", states, "Texas", "TX", "synonym"},
		{"US state code", states, "ny", "NY", "apart from case"},
		{"payment synonym", payment, "Vorkasse", "bank_transfer", "synonym"},
		{"initials", employment, "FT", "full_time", "synonym"},
		{"misspelling", status, "Termnated", "terminated", "spelled like"},
		{"prefix", status, "Pend", "pending", "starts"},
		{"nothing fits", status, "??", "", "no option matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mapping.SuggestEnum([]string{tt.value}, tt.field, mapping.History{})
			if len(got) != 1 {
				t.Fatalf("got %d suggestions, want 1", len(got))
			}
			g := got[0]
			if g.Option != tt.want {
				t.Fatalf("%q: got %q (%.2f, %v), want %q", tt.value, g.Option, g.Confidence, g.Reasons, tt.want)
			}
			if !strings.Contains(strings.Join(g.Reasons, "; "), tt.reason) {
				t.Errorf("%q: got reasons %q, want one mentioning %q", tt.value, g.Reasons, tt.reason)
			}
			if g.Option != "" && (g.Confidence <= 0 || g.Confidence > mapping.MaxConfidence) {
				t.Errorf("%q: got confidence %v, want it in (0, 0.99]", tt.value, g.Confidence)
			}
		})
	}
}

func TestSuggestEnumDistinctValuesInOrder(t *testing.T) {
	got := mapping.SuggestEnum([]string{"Ja", "", "nein", "Ja", "  ", "ja"}, enumField("yes", "Yes", "no", "No"), mapping.History{})
	var src []string
	for _, s := range got {
		src = append(src, s.Source)
	}
	if want := "Ja|nein|ja"; strings.Join(src, "|") != want {
		t.Fatalf("got %v, want each distinct non-empty value once, in order: %s", src, want)
	}
}

func TestSuggestEnumKeepsTheConfiguredValue(t *testing.T) {
	f := model.Field{Key: "level", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{
		{Value: json.RawMessage(`1`), Label: "Junior"}, {Value: json.RawMessage(`2`), Label: "Senior"}}}}
	got := mapping.SuggestEnum([]string{"senior"}, f, mapping.History{})[0]
	if got.Option != "2" || string(got.Value) != "2" || got.Label != "Senior" {
		t.Fatalf("got option %q value %s label %q, want the number 2 as configured", got.Option, got.Value, got.Label)
	}
}

func TestEnumHistoryWeighsOtherUsersAtEightyPercent(t *testing.T) {
	f := enumField("gold", "Gold", "silver", "Silver")
	mine := mapping.SuggestEnum([]string{"VIP"}, f, mapping.History{Mine: counts("VIP", "gold", 1)})[0]
	others := mapping.SuggestEnum([]string{"VIP"}, f, mapping.History{Others: counts("VIP", "gold", 1)})[0]
	if mine.Option != "gold" || others.Option != "gold" {
		t.Fatalf("got %q and %q, want gold from either history", mine.Option, others.Option)
	}
	if want := mine.Confidence * mapping.OtherUsersWeight; math.Abs(others.Confidence-want) > 0.001 {
		t.Errorf("got %v, want 80%% of %v", others.Confidence, mine.Confidence)
	}
	both := mapping.History{Mine: counts("VIP", "gold", 1), Others: counts("VIP", "silver", 3)}
	if got := mapping.SuggestEnum([]string{"VIP"}, f, both)[0]; got.Option != "gold" {
		t.Errorf("got %q, want the current user's gold over others' silver ×3", got.Option)
	}
}

func wideField(n int) model.Field {
	f := model.Field{Key: "sku", Type: model.FieldEnum, Config: &model.FieldConfig{}}
	for i := 0; i < n; i++ {
		v, _ := json.Marshal(fmt.Sprintf("item-%d", i))
		f.Config.Options = append(f.Config.Options, model.EnumOption{Value: v, Label: fmt.Sprintf("Item %d", i)})
	}
	return f
}

func TestWideEnumsUseTheSimpleAssignment(t *testing.T) {
	tests := []struct {
		name        string
		options     int
		values      int
		wantSimple  bool
		wantMisspel string // what the misspelling "Itme 7" maps to
	}{
		{"100 options, 100 values: full matching", 100, 99, false, "item-7"},
		{"101 options: simple", 101, 10, true, ""},
		{"101 values: simple", 50, 100, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := []string{"Itme 7"}
			for i := 0; i < tt.values; i++ {
				vals = append(vals, fmt.Sprintf("ITEM %d", i))
			}
			got := mapping.SuggestEnum(vals, wideField(tt.options), mapping.History{})
			simple := strings.Contains(strings.Join(got[0].Reasons, " "), "simple assignment")
			if simple != tt.wantSimple {
				t.Fatalf("got simple assignment %v, want %v (%d values, %d options)", simple, tt.wantSimple, len(vals), tt.options)
			}
			if got[0].Option != tt.wantMisspel {
				t.Errorf("misspelling: got %q, want %q", got[0].Option, tt.wantMisspel)
			}
			if got[1].Option != "item-0" {
				t.Errorf("normalised spelling: got %q, want item-0", got[1].Option)
			}
		})
	}
}

func TestLongEnumValuesAreKept(t *testing.T) {
	long := strings.Repeat("Extended warranty with on-site service ", 30)[:1000]
	f := enumField("warranty", long, "none", "None")
	got := mapping.SuggestEnum([]string{long, strings.ToUpper(long)}, f, mapping.History{})
	for _, g := range got {
		if g.Option != "warranty" || g.Label != long {
			t.Fatalf("got option %q with a %d-character label, want warranty and the full 1,000-character label", g.Option, len(g.Label))
		}
	}
	if got[0].Source != long {
		t.Errorf("the source value was cut to %d characters", len(got[0].Source))
	}
}
