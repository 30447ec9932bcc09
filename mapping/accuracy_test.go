package mapping_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

// corpusCase is one realistic export: the destination sheet, the file's columns with a few
// samples and the field a person would map each column to (null: leave it unmapped), and
// enum values with the option a person would pick.
type corpusCase struct {
	Name        string
	Destination model.SheetConfig
	Columns     []corpusColumn
	Enums       []corpusEnum
}

type corpusColumn struct {
	Header  string
	Samples []string
	Want    string // "" means the column must stay unmapped
}

type corpusEnum struct {
	Field  string
	Values [][2]*string // source value, expected option value (nil: no option)
}

// loadCorpus reads testdata/cases/*.json, whose cases name a destination schema of
// testdata/schemas.json.
func loadCorpus(t testing.TB) []corpusCase { return loadCases(t, "testdata/cases/*.json") }

// loadWorld reads testdata/world/*.json: exports in the UI's other languages,
// written after the lexicons and kept apart from the cases the engine is tuned on.
func loadWorld(t testing.TB) []corpusCase { return loadCases(t, "testdata/world/*.json") }

// loadFresh reads the second held-out corpus (written after the world corpus had become
// tuning data): 22 exports in 21 languages, measured on first contact before any change.
func loadFresh(t testing.TB) []corpusCase { return loadCases(t, "testdata/fresh/*.json") }

// loadCases reads the case files glob matches.
func loadCases(t testing.TB, glob string) []corpusCase {
	t.Helper()
	var schemas map[string]model.SheetConfig
	mustReadJSON(t, "testdata/schemas.json", &schemas)
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	var out []corpusCase
	for _, f := range files {
		var raw []struct {
			Name, Schema string
			Columns      []struct {
				H    string
				Want *string
				S    []string
			}
			Enums []corpusEnum
		}
		mustReadJSON(t, f, &raw)
		for _, r := range raw {
			dst, ok := schemas[r.Schema]
			if !ok {
				t.Fatalf("%s: case %q names unknown schema %q", f, r.Name, r.Schema)
			}
			c := corpusCase{Name: r.Name, Destination: dst, Enums: r.Enums}
			for _, col := range r.Columns {
				cc := corpusColumn{Header: col.H, Samples: col.S}
				if col.Want != nil {
					cc.Want = *col.Want
					if dst.FieldByKey(cc.Want) == nil {
						t.Fatalf("%s: %q expects unknown field %q", r.Name, col.H, cc.Want)
					}
				}
				c.Columns = append(c.Columns, cc)
			}
			out = append(out, c)
		}
	}
	return out
}

// loadHeldOut reads testdata/cases.json, a corpus written by another engineer for the
// first engine; this engine was not tuned on it.
func loadHeldOut(t testing.TB) []corpusCase {
	t.Helper()
	var raw []struct {
		Name        string
		Destination []model.Field
		Columns     []struct {
			Header  string
			Samples []string
			Expect  *string
		}
	}
	mustReadJSON(t, "testdata/cases.json", &raw)
	var out []corpusCase
	for _, r := range raw {
		c := corpusCase{Name: r.Name, Destination: model.SheetConfig{Name: r.Name, Fields: r.Destination}}
		for _, col := range r.Columns {
			cc := corpusColumn{Header: col.Header, Samples: col.Samples}
			if col.Expect != nil {
				cc.Want = *col.Expect
			}
			c.Columns = append(c.Columns, cc)
		}
		out = append(out, c)
	}
	return out
}

func mustReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// accuracy is what a corpus run measured.
type accuracy struct {
	cases, columns, correct          int
	expectedMapped, correctConfident int // columns a person maps; of those, right above 0.9
	wrong                            []string
	wrongConfident                   int // wrong suggestions above 0.9
	enums, enumCorrect, enumWrongHi  int
	enumWrong                        []string
}

func (a accuracy) top1() float64 { return ratio(a.correct, a.columns) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func measure(cases []corpusCase) accuracy {
	a := accuracy{cases: len(cases)}
	for _, c := range cases {
		cols := make([]mapping.Column, len(c.Columns))
		for i, col := range c.Columns {
			cols[i] = mapping.Column{Header: col.Header, Samples: col.Samples}
		}
		plan := mapping.Suggest(cols, c.Destination, mapping.History{}, mapping.Options{})
		for i, col := range c.Columns {
			got := plan.Columns[i]
			a.columns++
			if col.Want != "" {
				a.expectedMapped++
			}
			if got.Destination == col.Want {
				a.correct++
				if col.Want != "" && got.Confidence > 0.9 {
					a.correctConfident++
				}
				continue
			}
			if got.Destination != "" && got.Confidence > 0.9 {
				a.wrongConfident++
			}
			w := fmt.Sprintf("%s: %q → %q (%.2f), want %q", c.Name, col.Header, got.Destination, got.Confidence, col.Want)
			if got.Destination != "" {
				w += "; " + strings.Join(got.Reasons, "; ")
			}
			a.wrong = append(a.wrong, w)
		}
		for _, e := range c.Enums {
			f := c.Destination.FieldByKey(e.Field)
			for _, v := range e.Values {
				a.enums++
				got := mapping.SuggestEnum([]string{*v[0]}, *f, mapping.History{})[0]
				want := ""
				if v[1] != nil {
					want = *v[1]
				}
				if got.Option == want {
					a.enumCorrect++
					continue
				}
				if got.Option != "" && got.Confidence > 0.9 {
					a.enumWrongHi++
				}
				a.enumWrong = append(a.enumWrong, fmt.Sprintf("%s: %s %q → %q (%.2f), want %q", c.Name, e.Field, *v[0], got.Option, got.Confidence, want))
			}
		}
	}
	sort.Strings(a.wrong)
	return a
}

// report writes the figures and every miss through logf (t.Logf in tests; the benchmark
// prints, because Go shortens benchmark logs).
func (a accuracy) report(logf func(string, ...any), title string) {
	logf("%s: %d cases, %d columns (%d to map, %d to leave unmapped)", title, a.cases, a.columns, a.expectedMapped, a.columns-a.expectedMapped)
	logf("  top-1 accuracy: %.1f%% (%d of %d)", 100*a.top1(), a.correct, a.columns)
	logf("  correct suggestions above 0.9: %.1f%% (%d of %d columns a person maps)", 100*ratio(a.correctConfident, a.expectedMapped), a.correctConfident, a.expectedMapped)
	logf("  wrong mappings above 0.9: %d", a.wrongConfident)
	if a.enums > 0 {
		logf("  enum values: %.1f%% right (%d of %d), wrong above 0.9: %d", 100*ratio(a.enumCorrect, a.enums), a.enumCorrect, a.enums, a.enumWrongHi)
	}
	for _, w := range a.wrong {
		logf("  wrong: %s", w)
	}
	for _, w := range a.enumWrong {
		logf("  wrong enum: %s", w)
	}
}

// TestAccuracy holds the engine to the targets on the corpus: top-1 accuracy of at
// least 95% and no wrong mapping above 0.9 confidence. The held-out corpus is held to the
// accuracy target only: three of its expectations leave columns unmapped that the sheet has
// an obvious field for (Saldo → balance, Verwendungszweck → description, curr with "USD" →
// currency), and the engine maps them with confidence.
func TestAccuracy(t *testing.T) {
	// The tuning corpus and the world corpus: at least 98% top-1, nothing wrong
	// above 0.9.
	for _, c := range []struct {
		name  string
		cases []corpusCase
	}{{"corpus", loadCorpus(t)}, {"world corpus", loadWorld(t)}} {
		a := measure(c.cases)
		if a.top1() < 0.98 {
			a.report(t.Logf, c.name)
			t.Errorf("%s top-1 accuracy: got %.1f%%, want at least 98%%", c.name, 100*a.top1())
		}
		if a.wrongConfident > 0 {
			a.report(t.Logf, c.name)
			t.Errorf("%s wrong mappings above 0.9: got %d, want 0", c.name, a.wrongConfident)
		}
	}
	for _, c := range []struct {
		name  string
		cases []corpusCase
	}{{"held-out corpus", loadHeldOut(t)}, {"fresh held-out corpus", loadFresh(t)}} {
		if h := measure(c.cases); h.top1() < 0.95 {
			h.report(t.Logf, c.name)
			t.Errorf("%s top-1 accuracy: got %.1f%%, want at least 95%%", c.name, 100*h.top1())
		}
	}
}

// TestAccuracyReport prints the figures and every miss: go test ./mapping -run AccuracyReport -v
func TestAccuracyReport(t *testing.T) {
	measure(loadCorpus(t)).report(t.Logf, "corpus (testdata/cases)")
	measure(loadHeldOut(t)).report(t.Logf, "held-out corpus (testdata/cases.json)")
	measure(loadWorld(t)).report(t.Logf, "world corpus (testdata/world)")
	measure(loadFresh(t)).report(t.Logf, "fresh held-out corpus (testdata/fresh)")
}
