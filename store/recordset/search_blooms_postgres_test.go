package recordset_test

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// On PostgreSQL a search reads only the blocks of records whose filters may hold its needle
// (search_blooms_postgres.go): it finds what a scan finds after an import in batches that split
// blocks, an update, a delete undone, a small insert, a second import into the last block,
// a field dropped, and with escapes, letters beyond ASCII, lists and objects in the values;
// and the filters rule out most of the sheet for a needle of one record.
func TestSearchBloomsFindWhatAScanFinds(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("the search filters are PostgreSQL's")
	}
	defer recordset.SearchBloomsForTest(true, 1, 7)() // (blocks of 128 keys)
	fields := []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "n", Type: model.FieldNumber},
		{Key: "flag", Type: model.FieldBoolean},
		{Key: "tags", Type: model.FieldStringList},
		{Key: "note", Type: model.FieldString},
		{Key: "code", Type: model.FieldNumber},
	}
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: fields})
	// (names of letters and digits in no order: a needle of one record has trigrams few
	// other blocks have all of)
	name := func(prefix string, i int) string {
		return fmt.Sprintf("%s-%s", prefix, strconv.FormatUint((uint64(i)+1)*0x9E3779B97F4A7C15>>36, 36))
	}
	code := func(prefix string, i int) float64 { return float64(len(prefix)*100000000+(i*7919)%1000003) + 0.25 }
	odd := []any{"line\nabc", `say "hi"`, `back\slash`, "ÜMLAUT", "日本語", "50%_off", map[string]any{"Key": "ObjVal\u001f"}, []any{"Zq", nil, 7.5, false}, "Ctl\u001fx", nil, "", "true"}
	stream := func(prefix string, n, batch int) {
		t.Helper()
		i := 0
		_, err := e.db.InsertStream(t.Context(), sh, []string{"name", "n", "flag", "tags", "note", "code"}, func() ([]json.RawMessage, error) {
			if i == n {
				return nil, io.EOF
			}
			var cell any = name(prefix, i)
			if i%97 == 5 {
				cell = odd[i/97%len(odd)]
			}
			var tags any
			if i%7 == 0 {
				tags = []string{fmt.Sprintf("tag%d", i%50), "x\ty"}
			}
			var code any = code(prefix, i)
			if i == 2600 {
				code = 1e21 // (PostgreSQL writes its text otherwise: the block's filter is inexact for numbers)
			}
			row := make([]json.RawMessage, 6)
			for j, v := range []any{cell, i % 1000, i%3 == 0, tags, fmt.Sprintf("note %d #%d", i%20, 100000+i), code} {
				row[j], _ = json.Marshal(v)
			}
			i++
			return row, nil
		}, batch, recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account})
		if err != nil {
			t.Fatal(err)
		}
	}
	stream("Person", 5000, 1500)
	needles := []string{"person", "PERSON-", "son-1", "erson-z", "nabc", "abc", "hi\"", "slash", "ümlaut", "ÜMLAUT", "umlaut", "日本", "50%_", "0%_o",
		"objval", "key", "u001f", "ctl", "tl\u001fx", "x\ty", "tag1", "ag4", "note 1", "ote", "123", "12a", "rue", "true", "nobody", " person", "x\\ty", name("person", 77)[3:9],
		"0.25", "1000000000000000000000", "00000000", "e+21", "1e21", "nul", "alse"}
	scan := func(needle string, blooms bool) []string {
		defer recordset.SearchBloomsForTest(blooms, 1, 7)()
		var out []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{SearchValue: needle, Page: model.Page{Size: 10000, Number: 1}}) {
			out = append(out, r.ID)
		}
		return out
	}
	check := func(when string, few ...string) {
		t.Helper()
		for _, s := range append(needles, few...) {
			if got, want := scan(s, true), scan(s, false); !slices.Equal(got, want) {
				t.Errorf("%s: search %q finds %d records through the filters, %d scanning", when, s, len(got), len(want))
			}
		}
		// a needle of one record: the filters rule out most blocks
		for _, s := range few {
			n, err := e.db.BloomReadsForTest(t.Context(), e.account, sh, s)
			if err != nil {
				t.Fatal(err)
			}
			if n < 1 || n > 1250 {
				t.Errorf("%s: a search for %q reads %d records through the filters, want under a quarter of them", when, s, n)
			}
		}
	}
	// (#101234: numbers that count up hold every three digits in each block, not every four)
	check("after the import", name("Person", 1234), strings.ToUpper(name("Person", 4321)), fmt.Sprint(code("Person", 1234)), fmt.Sprint(code("Person", 2601)), "101234", "#103000")
	if len(scan(name("Person", 1234), true)) != 1 {
		t.Fatal("the search did not find the record")
	}

	all := e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 10000, Number: 1}})
	e.mustUpdate(t, sh, set(all[2100].ID, map[string]any{"name": "Renamed Zebra"}), set(all[700].ID, map[string]any{"code": 987654321.5}))
	check("after an update", "zebra", "987654321", name("Person", 100))

	opt := recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account, Undo: "delete"}
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{all[3000].ID, all[10].ID}, opt); err != nil {
		t.Fatal(err)
	}
	check("after a delete", name("Person", 2999))
	if _, err := e.db.Undo(t.Context(), sh, opt); err != nil {
		t.Fatal(err)
	}
	check("after the delete was undone", name("Person", 3000), name("Person", 10))

	e.mustInsert(t, sh, rows(map[string]any{"name": "Tiny Insert"}, map[string]any{"name": "tiny two"}))
	check("after a small insert", "tiny", name("Person", 4999))

	stream("Second", 1200, 1000)
	check("after a second import", name("Second", 7), name("Second", 1100), name("Person", 4998))

	e.setConfig(t, sh, model.SheetConfig{Name: "S", Fields: fields[:4]})
	e.mustUpdate(t, sh, set(all[1].ID, map[string]any{"name": "after the drop"}))
	check("after a field was dropped", name("Person", 999), name("Second", 500))
	if n := len(scan("note 1", true)); n != 0 {
		t.Fatalf("search of the dropped field's values found %d records", n)
	}
}
