package mapping_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

type accuracyCase struct {
	Name        string        `json:"name"`
	Destination []model.Field `json:"destination"`
	Columns     []struct {
		Header  string   `json:"header"`
		Samples []string `json:"samples"`
		Expect  *string  `json:"expect"`
	} `json:"columns"`
}

type accuracy struct {
	columns, correct, confidentCorrect, correctTotal int
	wrong                                            []string
	wrongConfident                                   int
}

// measure runs every case of testdata/cases.json (realistic exports with expected mappings,
// decoys expected to stay unmapped).
func measure(t testing.TB) accuracy {
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []accuracyCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	var a accuracy
	for _, c := range cases {
		cols := make([]mapping.Column, len(c.Columns))
		for i, col := range c.Columns {
			cols[i] = mapping.Column{Header: col.Header, Samples: col.Samples}
		}
		got := mapping.Suggest(cols, model.SheetConfig{Name: c.Name, Fields: c.Destination}, mapping.History{})
		for i, col := range c.Columns {
			a.columns++
			want := ""
			if col.Expect != nil {
				want = *col.Expect
			}
			g := got[i]
			if g.Destination == want {
				a.correct++
				if want != "" {
					a.correctTotal++
					if g.Confidence > 0.9 {
						a.confidentCorrect++
					}
				}
				continue
			}
			if g.Confidence > 0.9 {
				a.wrongConfident++
			}
			a.wrong = append(a.wrong, fmt.Sprintf("%s: %q → %q (%.2f, %v), want %q", c.Name, col.Header, g.Destination, g.Confidence, g.Reasons, want))
		}
	}
	return a
}

// TestAccuracy holds the engine to top-1 accuracy of at least 95% and no wrong mapping above
// 0.9 confidence on the corpus.
func TestAccuracy(t *testing.T) {
	a := measure(t)
	top1 := float64(a.correct) / float64(a.columns)
	t.Logf("mapping accuracy: %d columns, top-1 %.1f%%, correct suggestions above 0.9: %.1f%%, wrong above 0.9: %d",
		a.columns, top1*100, 100*float64(a.confidentCorrect)/float64(a.correctTotal), a.wrongConfident)
	for _, w := range a.wrong {
		t.Log("wrong: " + w)
	}
	if top1 < 0.95 {
		t.Errorf("top-1 accuracy %.1f%%, want at least 95%%", top1*100)
	}
	if a.wrongConfident > 0 {
		t.Errorf("%d wrong mappings above 0.9 confidence, want none", a.wrongConfident)
	}
}

// BenchmarkMappingAccuracy prints the accuracy figures in make bench.
func BenchmarkMappingAccuracy(b *testing.B) {
	var a accuracy
	for i := 0; i < b.N; i++ {
		a = measure(b)
	}
	b.ReportMetric(100*float64(a.correct)/float64(a.columns), "top1-%")
	b.ReportMetric(100*float64(a.confidentCorrect)/float64(a.correctTotal), "correct-above-0.9-%")
	b.ReportMetric(float64(a.wrongConfident), "wrong-above-0.9")
	fmt.Printf("mapping accuracy: %d columns in 41 cases; top-1 %.1f%%; correct suggestions above 0.9 confidence %.1f%%; wrong above 0.9: %d\n",
		a.columns, 100*float64(a.correct)/float64(a.columns), 100*float64(a.confidentCorrect)/float64(a.correctTotal), a.wrongConfident)
	for _, w := range a.wrong {
		fmt.Println("  wrong: " + w)
	}
}
