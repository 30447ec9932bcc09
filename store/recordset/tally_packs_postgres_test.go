package recordset_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

var packsSheet = model.SheetConfig{Name: "Packs", Fields: []model.Field{
	{Key: "email", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
	{Key: "code", Type: model.FieldNumber},
	{Key: "name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
	{Key: "tier", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{{Value: json.RawMessage(`"gold"`)}, {Value: json.RawMessage(`"silver"`)}}}},
	{Key: "tags", Type: model.FieldStringList},
}}

// packValues are a record's values: e-mails and codes mostly one a record (their lists are
// dropped: packed), some escapes and numbers in a text field and text in a number field
// (blocks without a pack, or with num set), tiers few (kept: never packed).
func packValues(r *rand.Rand, n int) map[string]any {
	out := map[string]any{
		"email": fmt.Sprintf("user%d@example.com", n),
		"code":  n,
		"name":  fmt.Sprintf("name %d", r.IntN(90)),
		"tier":  []string{"gold", "silver", "bronze", ""}[r.IntN(4)],
	}
	switch r.IntN(40) {
	case 0:
		out["email"] = fmt.Sprintf(`q"uote%d`, r.IntN(5))
	case 1:
		out["email"] = r.IntN(7) // a number in a text field
	case 2:
		out["code"] = fmt.Sprintf("text %d", r.IntN(5))
	case 3:
		out["code"] = 1e21
	case 4:
		out["email"] = "" // (an empty value: no line)
	case 5:
		out["name"] = "" // required: an invalid record
	case 6:
		out["email"] = "user1@example.com" // a duplicate: both invalid
	}
	if r.IntN(3) == 0 {
		out["tags"] = []string{"a", "b"}[:1+r.IntN(2)]
	}
	return out
}

// packsEnv is a PostgreSQL database (the test is skipped on SQLite) with a sheet of
// packsSheet, blocks of 8 keys and lists of no more than 50 values until the test ends.
func packsEnv(t *testing.T) (*sheetEnv, string) {
	t.Cleanup(recordset.TallyPacksForTest(3, 50))
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL only")
	}
	return e, e.mustCreateSheet(t, packsSheet)
}

// checkTallies compares every field's tally (whole sheet, slices of whole blocks and not;
// every record and valid ones) with the database's GROUP BY.
func checkTallies(t *testing.T, e *sheetEnv, sh, step string) {
	t.Helper()
	for _, q := range []recordset.RecordQuery{{}, {Filter: "valid"}} {
		for _, f := range packsSheet.Fields {
			for _, top := range []int{0, 7} {
				want, err := e.db.GroupedValuesForTest(t.Context(), e.account, sh, f.Key, q, top, false, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, slice := range []int64{32, 20} {
					got, err := e.db.GroupedValuesForTest(t.Context(), e.account, sh, f.Key, q, top, true, slice)
					if err != nil {
						t.Fatalf("%s: %s: %v", step, f.Key, err)
					}
					if cellsText(got) != cellsText(want) {
						t.Fatalf("%s: %+v %s top %d slice %d:\ntallied %s\ngrouped %s", step, q, f.Key, top, slice, cellsText(got), cellsText(want))
					}
				}
			}
		}
	}
}

// Tally packs (tally_packs_postgres.go) are read by a tally of every record and kept exact by every
// kind of write: imports in batches that start blocks and add to them, small inserts,
// edits, deletes, bulk updates, clearing a column, undo.
func TestTallyPacksFollowEveryWrite(t *testing.T) {
	e, sh := packsEnv(t)
	r := rand.New(rand.NewPCG(43, 2026))
	opt := recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account}
	var ids []string
	n := 0
	ins := func(k int) {
		var in []map[string]any
		for range k {
			n++
			in = append(in, packValues(r, n))
		}
		for _, rec := range e.mustInsert(t, sh, rows(in...)).Records {
			ids = append(ids, rec.ID)
		}
	}
	ins(60) // (more values than a list keeps: packed from the next write on)
	// Keys 56 to 60 gone, block 7 (keys 56 to 63) is empty: the next insert, which does not
	// start it, packs it all the same.
	if _, err := e.db.DeleteRecords(t.Context(), sh, ids[55:60], opt); err != nil {
		t.Fatal(err)
	}
	ids = ids[:55]
	ins(300) // (its first block, 7, holds no record before it)
	ins(101) // (starts in the second insert's last block: added to its packs)
	if n, err := e.db.CountForTest(t.Context(), `SELECT count(*) FROM tally_packs p JOIN record_columns c ON c.sk = p.sk AND c.col = p.col WHERE c.field_key = 'email' AND p.blk = 7`); err != nil || n != 1 {
		t.Fatalf("block 7's e-mails: %d packs (%v)", n, err)
	}
	packs := func() map[string]int {
		out := map[string]int{}
		for _, f := range packsSheet.Fields {
			c, err := e.db.CountForTest(t.Context(), `SELECT count(*) FROM tally_packs p JOIN record_columns c ON c.sk = p.sk AND c.col = p.col WHERE c.field_key = ?`, f.Key)
			if err != nil {
				t.Fatal(err)
			}
			out[f.Key] = c
		}
		return out
	}
	got := packs()
	// 456 records from key 1: blocks 0 to 57; e-mails and codes packed from block 7 on but
	// for blocks with a value no pack takes, names (90 values) from block 46 on (the third
	// insert's first key, 361, shares block 45 with key 360); tier's list is kept, tags'
	// values are lists.
	if got["name"] != 57-46+1 || got["email"] < 30 || got["code"] < 30 || got["tier"] != 0 || got["tags"] != 0 {
		t.Fatalf("packs after the import: %v", got)
	}
	checkTallies(t, e, sh, "import")

	// A tally of every record reads the packs: a line put into one shows.
	if err := e.db.ExecForTest(t.Context(), `UPDATE tally_packs SET lines = lines || E'\nplanted' WHERE blk = 50 AND col = (SELECT col FROM record_columns WHERE field_key = 'name')`); err != nil {
		t.Fatal(err)
	}
	planted, err := e.db.GroupedValuesForTest(t.Context(), e.account, sh, "name", recordset.RecordQuery{}, 0, true, 32)
	if err != nil || !strings.Contains(cellsText(planted), `"planted"=1/1`) {
		t.Fatalf("the planted line is not counted (%v): %s", err, cellsText(planted))
	}
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM tally_packs WHERE blk = 50`); err != nil {
		t.Fatal(err)
	}
	checkTallies(t, e, sh, "a block without packs")

	for step := range 40 {
		var what string
		switch op := r.IntN(8); {
		case op == 0:
			what = "small insert"
			ins(1 + r.IntN(5))
		case op == 1:
			what = "big insert"
			ins(64 + r.IntN(40))
		case op < 4:
			what = "update"
			var in []recordset.RecordIn
			for range 1 + r.IntN(3) {
				vals := packValues(r, n+1000+r.IntN(50))
				delete(vals, []string{"email", "code", "name", "tier"}[r.IntN(4)])
				in = append(in, set(ids[r.IntN(len(ids))], vals))
			}
			edit := opt
			edit.Undo = "edit"
			if _, err := e.db.UpdateRecords(t.Context(), sh, dedupe(in), edit); err != nil {
				t.Fatal(err)
			}
		case op == 4:
			what = "delete"
			i := r.IntN(len(ids))
			if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[i]}, opt); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		case op == 5:
			what = "bulk update of invalid records"
			v, _ := json.Marshal(fmt.Sprintf("fixed %d", step))
			if _, err := e.db.BulkUpdate(t.Context(), sh, recordset.RecordQuery{Filter: "error"}, map[string]recordset.CellIn{"name": {Value: v, HasValue: true}}, opt); err != nil {
				t.Fatal(err)
			}
		case op == 6:
			what = "undo"
			_, _ = e.db.Undo(t.Context(), sh, opt) // nothing to undo is fine
		default:
			what = "clear column"
			if _, err := e.db.ClearColumn(t.Context(), sh, []string{"code", "tags"}[r.IntN(2)], opt); err != nil {
				t.Fatal(err)
			}
		}
		checkTallies(t, e, sh, fmt.Sprintf("step %d (%s)", step, what))
	}
	if got := packs(); got["email"] == 0 || got["name"] == 0 {
		t.Fatalf("no packs left to read after the writes: %v", got)
	}

	// A find & replace over every e-mail packs again the blocks whose rows it dropped.
	blocks, err := e.db.CountForTest(t.Context(), `SELECT count(DISTINCT (rid & 68719476735) >> 3) FROM records`)
	if err != nil {
		t.Fatal(err)
	}
	fr := recordset.FindReplace{FieldKey: "email", Find: json.RawMessage(`"example.com"`), Replace: json.RawMessage(`"example.org"`)}
	if _, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, fr, opt); err != nil {
		t.Fatal(err)
	}
	checkTallies(t, e, sh, "find & replace")
	// (blocks holding a quote in an e-mail, a list or such have none: about one in ten)
	if got := packs(); got["email"] < blocks*8/10 {
		t.Fatalf("%d blocks, e-mails packed in %d after the find & replace", blocks, got["email"])
	}
}

// FillTallyPacks packs the blocks a sheet has no pack for (a sheet from before the packs,
// blocks whose packs edits dropped), for fields whose lists are not kept, as a write would.
func TestFillTallyPacks(t *testing.T) {
	e, sh := packsEnv(t)
	r := rand.New(rand.NewPCG(7, 2026))
	var in []map[string]any
	for i := range 400 {
		in = append(in, packValues(r, i))
	}
	e.mustInsert(t, sh, rows(in[:100]...)) // (lists dropped: the rest packed)
	e.mustInsert(t, sh, rows(in[100:]...))
	count := func() (n map[int]int) {
		n = map[int]int{}
		for col := range len(packsSheet.Fields) {
			c, err := e.db.CountForTest(t.Context(), `SELECT count(*) FROM tally_packs WHERE col = ?`, col)
			if err != nil {
				t.Fatal(err)
			}
			n[col] = c
		}
		return n
	}
	written := count()
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM tally_packs`); err != nil {
		t.Fatal(err)
	}
	e.db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1000 })
	if n, err := e.db.FillTallyPacks(t.Context()); err != nil || n != 0 {
		t.Fatalf("a sheet smaller than TallyMin: %d packed (%v)", n, err)
	}
	e.db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1 })
	n, err := e.db.FillTallyPacks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	filled := count()
	// e-mails, codes, names: every block the writes packed, and those of the first insert,
	// whose lists were still kept; tiers (kept) and tags (lists) none
	total := 0
	for col, c := range filled {
		total += c
		if (col <= 2 && c <= written[col]) || (col > 2 && c != 0) {
			t.Fatalf("packed by the writes %v, filled in %v", written, filled)
		}
	}
	if int(n) != total {
		t.Fatalf("FillTallyPacks says %d, %d rows", n, total)
	}
	checkTallies(t, e, sh, "packs filled in")
	if n, err := e.db.FillTallyPacks(t.Context()); err != nil || n != 0 {
		t.Fatalf("filled in again: %d (%v)", n, err)
	}
}

// A streamed import's first batch packs the fields its values alone are too many to keep
// for (counted ahead), though the lists were kept when it began.
func TestTallyPacksOfAStreamedImport(t *testing.T) {
	e, sh := packsEnv(t)
	keys := []string{"email", "code", "name", "tier", "tags"}
	r := rand.New(rand.NewPCG(9, 2026))
	n := 0
	src := func() ([]json.RawMessage, error) {
		if n == 600 {
			return nil, io.EOF
		}
		n++
		vals := packValues(r, n)
		out := make([]json.RawMessage, len(keys))
		for i, k := range keys {
			out[i], _ = json.Marshal(vals[k])
		}
		return out, nil
	}
	if _, err := e.db.InsertStream(t.Context(), sh, keys, src, 200, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	// the first batch: keys 1 to 200, blocks 0 to 25
	first, err := e.db.CountForTest(t.Context(), `SELECT count(*) FROM tally_packs p JOIN record_columns c ON c.sk = p.sk AND c.col = p.col WHERE c.field_key = 'code' AND p.blk <= 25`)
	if err != nil || first < 20 {
		t.Fatalf("the first batch's codes: %d blocks packed of 26 (%v)", first, err)
	}
	checkTallies(t, e, sh, "streamed import")
}
