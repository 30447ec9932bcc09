package records_test

import (
	"encoding/json"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
)

func mustCompile(t *testing.T, fields ...model.Field) *records.Schema {
	t.Helper()
	s, err := records.Compile(&model.SheetConfig{Name: "T", Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func enumField(key, typ string, opts ...string) model.Field {
	f := model.Field{Key: key, Type: typ, Config: &model.FieldConfig{}}
	for _, o := range opts {
		f.Config.Options = append(f.Config.Options, model.EnumOption{Value: json.RawMessage(o), Label: "L" + o[1:len(o)-1]})
	}
	return f
}

func fmtField(typ string, f *model.FieldFormat) model.Field {
	return model.Field{Key: "f", Type: typ, Config: &model.FieldConfig{Format: f}}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		field   model.Field
		in      string // JSON value; "" means absent
		want    string // stored JSON; "" means empty
		wantMsg string // source or "type" for a type error without source; "" for none
	}{
		{"string keeps text", model.Field{Type: "string"}, `"a"`, `"a"`, ""},
		{"string from number", model.Field{Type: "string"}, `42`, `"42"`, ""},
		{"string keeps empty string", model.Field{Type: "string"}, `""`, `""`, ""},
		{"null empties", model.Field{Type: "string"}, `null`, "", ""},
		{"escapes made canonical", model.Field{Type: "string"}, `"\u0041<b>"`, `"A<b>"`, ""},
		{"number from text", model.Field{Type: "number"}, `" 12.50 "`, `12.50`, ""},
		{"number plain", model.Field{Type: "number"}, `7`, `7`, ""},
		{"number rejects words", model.Field{Type: "number"}, `"n/a"`, `"n/a"`, "type"},
		{"number rejects NaN", model.Field{Type: "number"}, `"NaN"`, `"NaN"`, "type"},
		{"number from +1", model.Field{Type: "number"}, `"+1"`, `1`, ""},
		{"number beyond float64", model.Field{Type: "number"}, `1e999999`, `1e999999`, "type"},
		{"number beyond float64 as text", model.Field{Type: "number"}, `"-1e400"`, `"-1e400"`, "type"},
		{"number too small rounds to zero", model.Field{Type: "number"}, `1e-400`, `1e-400`, ""},
		{"boolean from yes", model.Field{Type: "boolean"}, `"Yes"`, `true`, ""},
		{"boolean from 0", model.Field{Type: "boolean"}, `0`, `false`, ""},
		{"boolean rejects maybe", model.Field{Type: "boolean"}, `"maybe"`, `"maybe"`, "type"},
		{"date iso", model.Field{Type: "date"}, `"2024-02-29"`, `"2024-02-29"`, ""},
		{"date m/d/y read when only that reading works", model.Field{Type: "date"}, `"02/28/2024"`, `"2024-02-28"`, ""},
		{"date d/m/y read when only that reading works", model.Field{Type: "date"}, `"23/08/1984"`, `"1984-08-23"`, ""},
		{"date ambiguous is an error, not a guess", model.Field{Type: "date"}, `"05/08/1963"`, `"05/08/1963"`, "type"},
		{"date ambiguous read with the field's format", fmtField("date", &model.FieldFormat{DateFormat: "DD/MM/YYYY"}), `"05/08/1963"`, `"1963-08-05"`, ""},
		{"date against the field's format", fmtField("date", &model.FieldFormat{DateFormat: "MM/DD/YYYY"}), `"23/08/1984"`, `"23/08/1984"`, "type"},
		{"date month name", model.Field{Type: "date"}, `"23. August 1984"`, `"1984-08-23"`, ""},
		{"date-time with zone kept", model.Field{Type: "date"}, `"1984-08-23T14:05:00+02:00"`, `"1984-08-23T14:05:00+02:00"`, ""},
		{"number thousands", model.Field{Type: "number"}, `"621,113.00"`, `621113.00`, ""},
		{"number decimal comma", model.Field{Type: "number"}, `"1,5"`, `1.5`, ""},
		{"number euro", model.Field{Type: "number"}, `"1.234,56 €"`, `1234.56`, ""},
		{"number accounting negative", model.Field{Type: "number"}, `"(45.00)"`, `-45.00`, ""},
		{"number ambiguous is an error", model.Field{Type: "number"}, `"1,234"`, `"1,234"`, "type"},
		{"number with the field's decimal comma", fmtField("number", &model.FieldFormat{DecimalSeparator: ","}), `"1.234"`, `1234`, ""},
		{"boolean in German", model.Field{Type: "boolean"}, `"ja"`, `true`, ""},
		{"date rejects", model.Field{Type: "date"}, `"tomorrow"`, `"tomorrow"`, "type"},
		{"enum by value", enumField("e", "enum", `"a"`, `"b"`), `"b"`, `"b"`, ""},
		{"enum by label", enumField("e", "enum", `"a"`, `"b"`), `"la"`, `"a"`, ""},
		{"enum option matched exactly", enumField("e", "enum", `"x"`), `"x"`, `"x"`, ""},
		{"enum rejects", enumField("e", "enum", `"a"`), `"z"`, `"z"`, "invalid-option"},
		{"enum without options rejects", model.Field{Type: "enum"}, `"z"`, `"z"`, "invalid-option"},
		{"enum-list items", enumField("e", "enum-list", `"a"`, `"b"`), `["a","lb"]`, `["a","b"]`, ""},
		{"enum-list bad item", enumField("e", "enum-list", `"a"`), `["a","q"]`, `["a","q"]`, "invalid-option"},
		{"string-list wraps one value", model.Field{Type: "string-list"}, `"solo"`, `["solo"]`, ""},
		{"string-list of numbers", model.Field{Type: "string-list"}, `[1, "b"]`, `["1","b"]`, ""},
		{"number isArray", model.Field{Type: "number", IsArray: true}, `["1", 2]`, `[1,2]`, ""},
		{"list in scalar field", model.Field{Type: "string"}, `["a"]`, `["a"]`, "type"},
		{"required missing", model.Field{Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}}, "", "", "required-constraint"},
		{"required empty string", model.Field{Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}}, `""`, `""`, "required-constraint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.field
			f.Key = "f"
			s := mustCompile(t, f)
			row := make(records.Row, 1)
			if tt.in != "" {
				row[0] = json.RawMessage(tt.in)
			}
			cells := s.Check(row)
			if got := string(row[0]); got != tt.want {
				t.Errorf("stored: got %s, want %s", got, tt.want)
			}
			var got string
			if cells != nil && len(cells[0]) > 0 {
				got = cells[0][0].Source
				if got == "" {
					got = "type"
				}
			}
			if got != tt.wantMsg {
				t.Errorf("message: got %q (%v), want %q", got, cells, tt.wantMsg)
			}
		})
	}
}

func TestUniqueKeys(t *testing.T) {
	s, err := records.Compile(&model.SheetConfig{Name: "T", Fields: []model.Field{
		{Key: "a", Type: "string", Constraints: []model.FieldConstraint{{Type: "unique", Config: json.RawMessage(`{"caseSensitive":false}`)}}},
		{Key: "n", Type: "number", Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "b", Type: "string"},
	}, Constraints: []model.SheetConstraint{{Type: "unique", Name: "ab", Fields: []string{"a", "b"}, RequiredFields: []string{"b"}}}})
	if err != nil {
		t.Fatal(err)
	}
	key := func(u int, vals ...string) string {
		row := make(records.Row, 3)
		for i, v := range vals {
			if v != "" {
				row[i] = json.RawMessage(v)
			}
		}
		k, ok := s.Uniques[u].UniqueKey(row)
		if !ok {
			return "<none>"
		}
		return k
	}
	for _, tc := range []struct{ got, want string }{
		{key(0, `"Ann"`), "ann"},
		{key(0, `""`), "<none>"},
		{key(1, "", `1.50`), "1.5"},
		{key(1, "", `1.5`), "1.5"},
		{key(1, "", `12345678901234567890`), "12345678901234567890"},
		{key(2, `"Ann"`, "", `"X"`), `["Ann","X"]`}, // composite rules are case-sensitive unless configured
		{key(2, `"Ann"`), "<none>"},                 // required field b empty
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	if _, err := records.Compile(&model.SheetConfig{Fields: []model.Field{{Key: "a", Type: "string"}}, Constraints: []model.SheetConstraint{{Type: "unique", Fields: []string{"zz"}}}}); err == nil {
		t.Errorf("got no error for a constraint on an unknown field")
	}
}

func TestASCIILower(t *testing.T) {
	// Only A–Z fold, as in SQLite's lower() and LIKE.
	for in, want := range map[string]string{"AbC": "abc", "ÀbÉ": "ÀbÉ", "plain": "plain"} {
		if got := records.ASCIILower(in); got != want {
			t.Errorf("ASCIILower(%q): got %q, want %q", in, got, want)
		}
	}
}

// The text a value had is kept when reading changed it, not when only its notation changed.
func TestCheckKeepsWhatWasWritten(t *testing.T) {
	s, err := records.Compile(&model.SheetConfig{Fields: []model.Field{{Key: "d", Type: "date"}, {Key: "n", Type: "number"}, {Key: "m", Type: "number"}, {Key: "s", Type: "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	row := records.Row{json.RawMessage(`"23/08/1984"`), json.RawMessage(`" 12.50 "`), json.RawMessage(`"1,5"`), json.RawMessage(`"x"`)}
	_, written := s.CheckKeep(row)
	if len(written) != 4 || written[0] != "23/08/1984" || written[1] != "" || written[2] != "1,5" || written[3] != "" {
		t.Fatalf("written: %q", written)
	}
}
