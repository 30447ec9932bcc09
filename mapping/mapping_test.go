package mapping_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

// contacts is a typical CRM destination.
func contacts() model.SheetConfig {
	return model.SheetConfig{Name: "Contacts", Fields: []model.Field{
		{Key: "first_name", Label: "First Name", Type: model.FieldString},
		{Key: "last_name", Label: "Last Name", Type: model.FieldString},
		{Key: "email", Label: "Email", Type: model.FieldString},
		{Key: "phone", Label: "Phone", Type: model.FieldString},
		{Key: "company", Label: "Company", Type: model.FieldString},
		{Key: "postal_code", Label: "Postal Code", Type: model.FieldString},
		{Key: "city", Label: "City", Type: model.FieldString},
		{Key: "country", Label: "Country", Type: model.FieldString},
		{Key: "date_of_birth", Label: "Date of Birth", Type: model.FieldDate},
		{Key: "quantity", Label: "Quantity", Type: model.FieldNumber},
		{Key: "ext_ref", Label: "External Ref", Type: model.FieldString, Description: "The customer's purchase order number"},
		{Key: "notes", Label: "Notes", Type: model.FieldString},
	}}
}

func suggestOne(t *testing.T, col mapping.Column, dst model.SheetConfig, hist mapping.History) mapping.Suggestion {
	t.Helper()
	plan := mapping.Suggest([]mapping.Column{col}, dst, hist, mapping.Options{})
	if len(plan.Columns) != 1 {
		t.Fatalf("got %d suggestions, want 1", len(plan.Columns))
	}
	return plan.Columns[0]
}

func TestSuggestSignals(t *testing.T) {
	tests := []struct {
		name, header string
		samples      []string
		want, reason string
	}{
		{"label equality", "First Name", nil, "first_name", `equals the field's label "First Name"`},
		{"key apart from case and separators", "FIRST-NAME", nil, "first_name", "apart from case and separators"},
		{"camelCase", "firstName", nil, "first_name", "apart from case and separators"},
		{"abbreviation fname", "fname", nil, "first_name", `abbreviation: "fname"`},
		{"abbreviation dob", "DOB", nil, "date_of_birth", `abbreviation: "dob"`},
		{"abbreviation qty", "qty", nil, "quantity", `abbreviation: "qty"`},
		{"abbreviation zip", "zip", nil, "postal_code", `synonym: "zip" → postal code`},
		{"e-mail spelling", "E-mail", nil, "email", "email"},
		{"English synonym", "Given Name", nil, "first_name", `synonym: "given name" → first name`},
		{"German", "Vorname", nil, "first_name", `German: "vorname"`},
		{"German PLZ", "PLZ", nil, "postal_code", `German: "plz"`},
		{"German compound", "Telefonnummer", nil, "phone", "phone"},
		{"French", "Prénom", nil, "first_name", `French: "prenom"`},
		{"French phrase in Romance order", "Code postal", nil, "postal_code", "postal code"},
		{"Spanish", "Código postal", nil, "postal_code", "postal code"},
		{"Spanish first name", "Nombre", nil, "first_name", `Spanish: "nombre"`},
		{"Portuguese", "Data de nascimento", nil, "date_of_birth", "date of birth"},
		{"Italian CAP", "CAP", nil, "postal_code", `Italian: "cap"`},
		{"Dutch", "Voornaam", nil, "first_name", `Dutch: "voornaam"`},
		{"Dutch postcode", "Postcode", nil, "postal_code", "postal code"},
		{"edit distance", "Compnay", nil, "company", `"compnay" is spelled like "company"`},
		{"description", "PO Number", nil, "ext_ref", `description mentions "po number"`},
		{"samples name the column", "Column 7", []string{"ann@example.com", "bo@example.org"}, "email", "e-mail addresses"},
		{"samples confirm the name", "Mail", []string{"ann@example.com"}, "email", "sample values look like e-mail addresses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := suggestOne(t, mapping.Column{Header: tt.header, Samples: tt.samples}, contacts(), mapping.History{})
			if got.Destination != tt.want {
				t.Fatalf("%q: got %q (%.2f, %v), want %q", tt.header, got.Destination, got.Confidence, got.Reasons, tt.want)
			}
			if !strings.Contains(strings.Join(got.Reasons, "; "), tt.reason) {
				t.Errorf("%q: got reasons %q, want one mentioning %q", tt.header, got.Reasons, tt.reason)
			}
			if got.Confidence <= 0 || got.Confidence > mapping.MaxConfidence {
				t.Errorf("%q: got confidence %v, want it in (0, %v]", tt.header, got.Confidence, mapping.MaxConfidence)
			}
		})
	}
}

func TestSamplesOverruleAMisleadingHeader(t *testing.T) {
	dst := model.SheetConfig{Fields: []model.Field{
		{Key: "status", Label: "Employment Status", Type: model.FieldEnum, Config: &model.FieldConfig{Options: opts("active", "Active", "terminated", "Terminated")}},
		{Key: "employment_type", Label: "Employment Type", Type: model.FieldEnum, Config: &model.FieldConfig{Options: opts("full_time", "Full-time", "part_time", "Part-time", "contractor", "Contractor")}},
	}}
	plan := mapping.Suggest([]mapping.Column{
		{Header: "Employment Status", Samples: []string{"Full-Time", "Contractor", "Part-Time"}},
		{Header: "Status", Samples: []string{"Active", "Inactive"}},
	}, dst, mapping.History{}, mapping.Options{})
	if got := []string{plan.Columns[0].Destination, plan.Columns[1].Destination}; !reflect.DeepEqual(got, []string{"employment_type", "status"}) {
		t.Fatalf("got %v, want the values to decide: [employment_type status]", got)
	}
}

func TestDecoysStayUnmapped(t *testing.T) {
	for _, h := range []string{"Record ID", "Last Activity Date", "Unnamed: 3", "Column1", "session_count", "Internal Row Hash", "Last Modified"} {
		got := suggestOne(t, mapping.Column{Header: h, Samples: []string{"17", "22"}}, contacts(), mapping.History{})
		if got.Destination != "" {
			t.Errorf("%q: got %q (%.2f, %v), want no field", h, got.Destination, got.Confidence, got.Reasons)
		}
	}
}

func TestConfidenceIsCappedAndNeverCertain(t *testing.T) {
	mine := mapping.Counts{"email": {"email": 50}}
	got := suggestOne(t, mapping.Column{Header: "Email", Samples: []string{"a@b.co", "c@d.org"}}, contacts(), mapping.History{Mine: mine})
	if got.Confidence != mapping.MaxConfidence {
		t.Fatalf("every signal agreeing: got %v, want the cap %v", got.Confidence, mapping.MaxConfidence)
	}
	for _, s := range mapping.Suggest(realisticColumns(), contacts(), mapping.History{Mine: mine}, mapping.Options{}).Columns {
		if s.Destination != "" && (s.Confidence <= 0 || s.Confidence > mapping.MaxConfidence) {
			t.Errorf("%q: got confidence %v, want it in (0, 0.99]", s.Source, s.Confidence)
		}
		if s.Destination == "" && s.Confidence != 0 {
			t.Errorf("%q: got confidence %v without a destination, want 0", s.Source, s.Confidence)
		}
	}
}

func realisticColumns() []mapping.Column {
	return []mapping.Column{
		{Header: "Vorname", Samples: []string{"Anna"}}, {Header: "Nachname", Samples: []string{"Keller"}},
		{Header: "E-Mail", Samples: []string{"anna@example.de"}}, {Header: "Telefon", Samples: []string{"+49 30 1234567"}},
		{Header: "Firma", Samples: []string{"Nordlicht GmbH"}}, {Header: "PLZ", Samples: []string{"10117"}},
		{Header: "Ort", Samples: []string{"Berlin"}}, {Header: "Land", Samples: []string{"Deutschland"}},
		{Header: "Geburtsdatum", Samples: []string{"14.07.1990"}}, {Header: "Kundennummer", Samples: []string{"K-1"}},
	}
}

func TestThresholdDecidesAutoApply(t *testing.T) {
	col := mapping.Column{Header: "Compnay"} // a typo: offered with moderate confidence
	tests := []struct {
		name      string
		threshold *float64
		wantAuto  bool
	}{
		{"default 0.5", nil, true},
		{"sheet threshold above the score", ptr(0.95), false},
		{"threshold 1 applies nothing", ptr(1), false},
		{"low threshold", ptr(0.1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := contacts()
			dst.MappingConfidenceThreshold = tt.threshold
			plan := mapping.Suggest([]mapping.Column{col}, dst, mapping.History{}, mapping.Options{})
			got := plan.Columns[0]
			if got.Destination != "company" {
				t.Fatalf("got %q, want company offered", got.Destination)
			}
			if got.AutoApply != tt.wantAuto {
				t.Errorf("confidence %.2f, threshold %v: got AutoApply %v, want %v", got.Confidence, plan.Threshold, got.AutoApply, tt.wantAuto)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

func TestOneColumnPerFieldAndDeterministic(t *testing.T) {
	cols := []mapping.Column{{Header: "Email"}, {Header: "E-mail"}, {Header: "Mail"}, {Header: "Vorname"}, {Header: "First name"}}
	first := mapping.Suggest(cols, contacts(), mapping.History{}, mapping.Options{})
	count := map[string]int{}
	for _, s := range first.Columns {
		if s.Destination != "" {
			count[s.Destination]++
		}
	}
	for k, n := range count {
		if n > 1 {
			t.Errorf("field %q got %d columns, want at most 1", k, n)
		}
	}
	if first.Columns[0].Destination != "email" || first.Columns[4].Destination != "first_name" {
		t.Errorf("got %q and %q, want the exact headers to win: email, first_name", first.Columns[0].Destination, first.Columns[4].Destination)
	}
	for i := 0; i < 20; i++ {
		if again := mapping.Suggest(cols, contacts(), mapping.History{}, mapping.Options{}); !reflect.DeepEqual(again, first) {
			t.Fatalf("run %d: got a different plan for the same input", i)
		}
	}
}

func TestTiesBreakBySourceThenSheetOrder(t *testing.T) {
	dst := model.SheetConfig{Fields: []model.Field{{Key: "a_email", Label: "Email"}, {Key: "b_email", Label: "Email"}}}
	plan := mapping.Suggest([]mapping.Column{{Header: "Email"}, {Header: "Email"}}, dst, mapping.History{}, mapping.Options{})
	got := []string{plan.Columns[0].Destination, plan.Columns[1].Destination}
	if want := []string{"a_email", "b_email"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAlternativesAndUnmapped(t *testing.T) {
	plan := mapping.Suggest([]mapping.Column{{Header: "Mobile Phone"}}, contacts(), mapping.History{}, mapping.Options{})
	s := plan.Columns[0]
	if s.Destination != "phone" {
		t.Fatalf("got %q, want phone", s.Destination)
	}
	if len(s.Alternatives) > 3 {
		t.Errorf("got %d alternatives, want at most 3", len(s.Alternatives))
	}
	for _, a := range s.Alternatives {
		if a.Field == s.Destination {
			t.Errorf("the chosen field %q is listed again as an alternative", a.Field)
		}
	}
	if len(plan.Unmapped) != len(contacts().Fields)-1 || contains(plan.Unmapped, "phone") {
		t.Errorf("got unmapped %v, want every field but phone", plan.Unmapped)
	}
}

func TestAddAsCustomField(t *testing.T) {
	dst := contacts()
	dst.AllowAdditionalFields = true
	cols := []mapping.Column{{Header: "Loyalty Tier"}, {Header: "loyalty_tier"}, {Header: "Email"}, {Header: "Notes"}, {Header: "Unnamed: 4"}}
	plan := mapping.Suggest(cols, dst, mapping.History{}, mapping.Options{})
	tier, tier2 := plan.Columns[0].AddAsCustom, plan.Columns[1].AddAsCustom
	if tier == nil || tier2 == nil {
		t.Fatalf("got %+v, want custom fields for the unmatched columns", plan.Columns[:2])
	}
	want := model.Field{Key: "loyalty_tier", Label: "Loyalty Tier", Type: model.FieldString, Treatments: []string{"additional"}}
	if !reflect.DeepEqual(*tier, want) {
		t.Errorf("got %+v, want %+v", *tier, want)
	}
	if tier2.Key != "loyalty_tier_2" || tier2.Label != "loyalty_tier" {
		t.Errorf("got key %q label %q, want a key that clashes with nothing: loyalty_tier_2", tier2.Key, tier2.Label)
	}
	if plan.Columns[2].AddAsCustom != nil || plan.Columns[3].AddAsCustom != nil {
		t.Errorf("matched columns got a custom field")
	}
	if plan.Columns[4].AddAsCustom != nil {
		t.Errorf("a column without a header got a custom field")
	}
	dst.AllowAdditionalFields = false
	if got := mapping.Suggest(cols, dst, mapping.History{}, mapping.Options{}).Columns[0].AddAsCustom; got != nil {
		t.Errorf("got %+v on a sheet without allowAdditionalFields, want none", got)
	}
}

func TestLongHeadersAreKept(t *testing.T) {
	long := strings.Repeat("Customer loyalty programme membership tier ", 25)[:1000]
	dst := contacts()
	dst.AllowAdditionalFields = true
	dst.Fields = append(dst.Fields, model.Field{Key: "long", Label: long})
	plan := mapping.Suggest([]mapping.Column{{Header: long}, {Header: long + " (copy)"}}, dst, mapping.History{}, mapping.Options{})
	if got := plan.Columns[0]; got.Source != long || got.Destination != "long" {
		t.Fatalf("got source of %d characters mapped to %q, want all 1,000 kept and the long label matched", len(got.Source), got.Destination)
	}
	custom := plan.Columns[1].AddAsCustom
	if custom == nil || custom.Label != long+" (copy)" || len(custom.Key) < 1000 {
		t.Fatalf("got custom field %+v, want label and key of the full header", custom)
	}
	if r := strings.Join(plan.Columns[0].Reasons, " "); !strings.Contains(r, long) {
		t.Errorf("the reason lost the long label")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func opts(pairs ...string) []model.EnumOption {
	var out []model.EnumOption
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, model.EnumOption{Value: []byte(fmt.Sprintf("%q", pairs[i])), Label: pairs[i+1]})
	}
	return out
}

func TestEmptyInputs(t *testing.T) {
	if plan := mapping.Suggest(nil, contacts(), mapping.History{}, mapping.Options{}); len(plan.Columns) != 0 || len(plan.Unmapped) != len(contacts().Fields) {
		t.Errorf("no columns: got %+v, want an empty plan with every field unmapped", plan)
	}
	plan := mapping.Suggest([]mapping.Column{{Header: ""}, {Header: "   "}, {Header: "der die das"}}, model.SheetConfig{}, mapping.History{}, mapping.Options{})
	for _, s := range plan.Columns {
		if s.Destination != "" || s.Confidence != 0 {
			t.Errorf("no fields: got %+v, want nothing", s)
		}
	}
	if got := mapping.SuggestEnum([]string{"a"}, model.Field{Key: "e", Type: model.FieldEnum}, mapping.History{}); len(got) != 1 || got[0].Option != "" {
		t.Errorf("enum without options: got %+v, want the value unmatched", got)
	}
}
