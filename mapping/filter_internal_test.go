package mapping

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sluice/sluice/model"
)

// TestCandidateFilteringChangesNothing scores every pair of every corpus case and compares
// the plans with the filtered ones.
func TestCandidateFilteringChangesNothing(t *testing.T) {
	var schemas map[string]model.SheetConfig
	b, err := os.ReadFile("testdata/schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schemas); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/cases/*.json")
	hist := History{Mine: Counts{"kto ref": {"email": 1}}, Others: Counts{"name": {"city": 2}}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Name, Schema string
			Columns      []struct {
				H string
				S []string
			}
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			cols := []Column{{Header: "Kto-Ref"}, {Header: "Column 3", Samples: []string{"a@b.co"}}}
			for _, col := range c.Columns {
				cols = append(cols, Column{Header: col.H, Samples: col.S})
			}
			filtered := Suggest(cols, schemas[c.Schema], hist, Options{})
			scoreAllPairs = true
			all := Suggest(cols, schemas[c.Schema], hist, Options{})
			scoreAllPairs = false
			if !reflect.DeepEqual(filtered, all) {
				t.Errorf("%s: filtering changed the plan", c.Name)
			}
		}
	}
}
