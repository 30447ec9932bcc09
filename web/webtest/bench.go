package webtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
)

// BenchSheet makes a space with an n-record sheet (8 fields, a unique and a required one,
// every tenth record missing its name), inserted through the store's bulk stream.
func (e *Env) BenchSheet(b testing.TB, n int) (spaceID, sheetID string) {
	ctx := b.Context()
	sp := &model.Space{AccountID: e.Account, EnvironmentID: e.EnvID, Name: "bench"}
	if err := e.DB.CreateSpace(ctx, sp, "bench"); err != nil {
		b.Fatal(err)
	}
	cfg := model.SheetConfig{Name: "People", Slug: "people", Fields: []model.Field{
		{Key: "ref", Label: "Ref", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "name", Label: "Name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
		{Key: "email", Label: "Email", Type: model.FieldString},
		{Key: "age", Label: "Age", Type: model.FieldNumber},
		{Key: "city", Label: "City", Type: model.FieldString},
		{Key: "country", Label: "Country", Type: model.FieldString},
		{Key: "joined", Label: "Joined", Type: model.FieldString},
		{Key: "status", Label: "Status", Type: model.FieldString},
	}}
	wb := &model.Workbook{AccountID: e.Account, EnvironmentID: e.EnvID, SpaceID: sp.ID, Name: "Bench", Sheets: []*model.Sheet{{Config: cfg}}}
	if err := e.DB.CreateWorkbook(ctx, wb, "bench"); err != nil {
		b.Fatal(err)
	}
	keys := []string{"ref", "name", "email", "age", "city", "country", "joined", "status"}
	cities := []string{"Zurich", "Geneva", "Basel", "Bern", "Lausanne", "Lugano", "Berlin", "Paris", "Milan", "Lyon"}
	i := 0
	src := func() ([]json.RawMessage, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		name := records.Quote("Person " + strconv.Itoa(i))
		if i%10 == 0 {
			name = json.RawMessage("null")
		}
		return []json.RawMessage{records.Quote("R" + strconv.Itoa(i)), name, records.Quote("p" + strconv.Itoa(i) + "@example.com"),
			json.RawMessage(strconv.Itoa(18 + i%60)), records.Quote(cities[i%len(cities)]), records.Quote("CH"), records.Quote("2024-01-02"),
			records.Quote("active")}, nil
	}
	start := time.Now()
	if _, err := e.DB.InsertStream(ctx, wb.Sheets[0].ID, keys, src, 10000, recordset.WriteOptions{Actor: "bench", AccountID: e.Account}); err != nil && !errors.Is(err, io.EOF) {
		b.Fatal(err)
	}
	fmt.Printf("inserted %d records in %s\n", n, time.Since(start).Round(time.Millisecond))
	return sp.ID, wb.Sheets[0].ID
}
