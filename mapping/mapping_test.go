package mapping_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

func fields(keys ...string) model.SheetConfig {
	cfg := model.SheetConfig{Name: "Contacts"}
	for _, k := range keys {
		typ := model.FieldString
		if k == "age" || k == "amount" {
			typ = model.FieldNumber
		}
		cfg.Fields = append(cfg.Fields, model.Field{Key: k, Type: typ})
	}
	return cfg
}

func TestSuggestRealHeaders(t *testing.T) {
	dst := fields("first_name", "last_name", "email", "phone", "company", "postal_code", "city", "country", "date_of_birth", "amount")
	tests := []struct{ header, want string }{
		{"First Name", "first_name"}, {"fname", "first_name"}, {"Vorname", "first_name"}, {"Prénom", "first_name"}, {"nombre", "first_name"},
		{"Surname", "last_name"}, {"Nachname", "last_name"}, {"E-mail Address", "email"}, {"Courriel", "email"}, {"Telefonnummer", "phone"},
		{"Mobile", "phone"}, {"Organisation", "company"}, {"PLZ", "postal_code"}, {"Zip", "postal_code"}, {"Code postal", "postal_code"},
		{"Town", "city"}, {"Land", "country"}, {"DOB", "date_of_birth"}, {"Geburtsdatum", "date_of_birth"}, {"Total", "amount"},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got := mapping.Suggest([]mapping.Column{{Header: tt.header}}, dst, mapping.History{})[0]
			if got.Destination != tt.want {
				t.Fatalf("got %q (%.2f, %v), want %q", got.Destination, got.Confidence, got.Reasons, tt.want)
			}
			if got.Confidence <= 0 || got.Confidence > mapping.MaxConfidence || len(got.Reasons) == 0 {
				t.Fatalf("got confidence %v with reasons %v, want (0, 0.99] and a reason", got.Confidence, got.Reasons)
			}
		})
	}
}

func TestOneColumnPerFieldAndDecoys(t *testing.T) {
	dst := fields("email", "first_name")
	got := mapping.Suggest([]mapping.Column{{Header: "Email"}, {Header: "E-mail"}, {Header: "Internal Row Hash"}}, dst, mapping.History{})
	if got[0].Destination != "email" || got[1].Destination == "email" || got[2].Destination != "" {
		t.Fatalf("got %q %q %q, want email once and the decoy unmapped", got[0].Destination, got[1].Destination, got[2].Destination)
	}
}

func TestConfidenceCapAndThreshold(t *testing.T) {
	dst := fields("email")
	hist := mapping.History{Mine: map[string]map[string]int{"email": {"email": 50}}}
	got := mapping.Suggest([]mapping.Column{{Header: "email", Samples: []string{"a@b.co", "c@d.org"}}}, dst, hist)[0]
	if got.Confidence != mapping.MaxConfidence {
		t.Fatalf("got %v, want the 0.99 cap with every signal agreeing", got.Confidence)
	}
	high := 0.995
	dst.MappingConfidenceThreshold = &high
	if got := mapping.Suggest([]mapping.Column{{Header: "email"}}, dst, hist)[0]; got.AutoApply || got.Destination != "email" {
		t.Fatalf("threshold above the cap: got AutoApply %v for %q, want offered but not applied", got.AutoApply, got.Destination)
	}
}

func TestOtherUsersHistoryCountsEightyPercent(t *testing.T) {
	dst := fields("customer_ref", "note")
	col := []mapping.Column{{Header: "Kd-Nr"}}
	none := mapping.Suggest(col, dst, mapping.History{})[0]
	mine := mapping.Suggest(col, dst, mapping.History{Mine: map[string]map[string]int{"kd nr": {"customer_ref": 1}}})[0]
	others := mapping.Suggest(col, dst, mapping.History{Others: map[string]map[string]int{"kd nr": {"customer_ref": 1}}})[0]
	if none.Destination != "" || mine.Destination != "customer_ref" || others.Destination != "customer_ref" {
		t.Fatalf("got %q / %q / %q", none.Destination, mine.Destination, others.Destination)
	}
	if want := mine.Confidence * mapping.OtherUsersWeight; fmt.Sprintf("%.3f", others.Confidence) != fmt.Sprintf("%.3f", want) {
		t.Fatalf("others' history: got %v, want 80%% of %v", others.Confidence, mine.Confidence)
	}
}

func enumField(n int) model.Field {
	f := model.Field{Key: "status", Type: model.FieldEnum, Config: &model.FieldConfig{}}
	for i := 0; i < n; i++ {
		v, _ := json.Marshal(fmt.Sprintf("opt%d", i))
		f.Config.Options = append(f.Config.Options, model.EnumOption{Value: v, Label: fmt.Sprintf("Option %d", i)})
	}
	return f
}

func TestSuggestEnum(t *testing.T) {
	f := model.Field{Key: "active", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{
		{Value: json.RawMessage(`"yes"`), Label: "Yes"}, {Value: json.RawMessage(`"no"`), Label: "No"}, {Value: json.RawMessage(`"pending"`), Label: "Pending review"}}}}
	got := mapping.SuggestEnum([]string{"Ja", "NON", "pending review", "Pendng", "??"}, f, mapping.History{})
	want := map[string]string{"Ja": "yes", "NON": "no", "pending review": "pending", "Pendng": "pending", "??": ""}
	for _, s := range got {
		if s.Option != want[s.Source] {
			t.Errorf("%q: got %q, want %q", s.Source, s.Option, want[s.Source])
		}
	}
}

func TestWideEnumsUseTheSimplePath(t *testing.T) {
	f := enumField(5000)
	var vals []string
	for i := 0; i < 5000; i++ {
		vals = append(vals, fmt.Sprintf("OPT%d", i))
	}
	start := time.Now()
	got := mapping.SuggestEnum(append(vals, "opt-1x"), f, mapping.History{})
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Fatalf("5,000 values took %v, want the simple path to stay fast", d)
	}
	for _, s := range got {
		if s.Source == "OPT42" && (s.Option != "opt42" || s.Reason == "") {
			t.Fatalf("got %+v, want OPT42 → opt42", s)
		}
		if s.Source == "opt-1x" && s.Option != "" {
			t.Fatalf("simple path matched a misspelling: %+v", s)
		}
	}
}

func TestLongTextsAreKept(t *testing.T) {
	long := ""
	for len(long) < 1000 {
		long += "very long header "
	}
	got := mapping.Suggest([]mapping.Column{{Header: long}}, fields("x"), mapping.History{})[0]
	if got.Source != long {
		t.Fatal("the header was cut")
	}
}
