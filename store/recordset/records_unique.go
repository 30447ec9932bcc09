package recordset

import (
	"database/sql"
	"sort"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// reconcileUniques updates the unique-value index for the changes and sets each new state's
// dups. Records outside the write whose duplicate status flips (the twins of a value that
// became or stopped being a duplicate) are rewritten here with their counts adjusted.
func (tx *Tx) reconcileUniques(rs *stored.Sheet, changes []*change, w *writeCtx, d *countDelta) error {
	if len(rs.Schema.Uniques) == 0 {
		return nil
	}
	inWrite := make(map[int64]bool, len(changes))
	for _, c := range changes {
		inWrite[c.rid()] = true
	}
	twins := map[int64]map[int64]bool{} // rid → uc → should be a duplicate
	for ui, u := range rs.Schema.Uniques {
		uc := rs.UCOf[u]
		ix := &ruleIndex{u: u, ui: ui, uc: uc}
		if err := tx.indexRule(ix, changes, w.emptyBefore); err != nil {
			return err
		}
		for i, c := range changes {
			if c.new == nil || !ix.has[i] {
				continue
			}
			if rids, ok := ix.entries[ix.keys[i]]; ok {
				if len(rids) >= 2 {
					c.new.Dups = append(c.new.Dups, uc)
				}
			} else if ix.keep[i] && containsInt(c.old.Dups, uc) {
				c.new.Dups = append(c.new.Dups, uc)
			}
		}
		for _, rids := range ix.entries {
			for _, rid := range rids {
				if inWrite[rid] {
					continue
				}
				if twins[rid] == nil {
					twins[rid] = map[int64]bool{}
				}
				twins[rid][uc] = len(rids) >= 2
			}
		}
	}
	for _, c := range changes {
		if c.new != nil {
			sort.Slice(c.new.Dups, func(i, j int) bool { return c.new.Dups[i] < c.new.Dups[j] })
		}
	}
	return tx.flipTwins(rs, twins, w, d)
}

// ruleIndex is the work of one unique rule in one write.
type ruleIndex struct {
	u       *records.Unique
	ui      int // the rule's place in the schema's Uniques
	uc      int64
	keys    []string // the new value of each change
	has     []bool   // the change's new state takes part in the rule
	keep    []bool   // neither the value nor anything sharing it changed: status stays
	entries map[string][]int64
}

// indexRule moves the index entries of one rule for the changes and collects the complete
// entries of every value whose duplicate status the write may have changed.
func (tx *Tx) indexRule(ix *ruleIndex, changes []*change, emptyBefore bool) error {
	n := len(changes)
	ix.keys, ix.has, ix.keep = make([]string, n), make([]bool, n), make([]bool, n)
	ix.entries = map[string][]int64{}
	var adds []uentry
	removes := map[string][]int64{}
	var unchanged []int
	for i, c := range changes {
		var ok string
		var oh bool
		if c.old != nil && c.kind != kRecheck {
			ok, oh = ix.u.UniqueKey(c.old.Row)
		}
		if c.new != nil {
			ix.keys[i], ix.has[i] = c.new.UniqueKey(ix.u, ix.ui)
		}
		switch {
		case oh && ix.has[i] && ok == ix.keys[i]:
			unchanged = append(unchanged, i)
			continue
		case oh:
			removes[ok] = append(removes[ok], c.rid())
		}
		if ix.has[i] {
			adds = append(adds, uentry{ix.keys[i], c.rid()})
		}
	}
	sort.Slice(adds, func(a, b int) bool {
		if adds[a].val != adds[b].val {
			return adds[a].val < adds[b].val
		}
		return adds[a].rid < adds[b].rid
	})
	if len(removes) > 0 {
		if err := tx.rewriteKeys(ix, adds, removes); err != nil {
			return err
		}
	}
	if err := tx.addKeys(ix, adds, removes, emptyBefore); err != nil {
		return err
	}
	for _, i := range unchanged {
		if _, touched := ix.entries[ix.keys[i]]; !touched {
			ix.keep[i] = true
		}
	}
	return nil
}

// groups calls fn for each run of entries with the same value (entries sorted by value).
func groups(es []uentry, fn func(val string, run []uentry)) {
	for start := 0; start < len(es); {
		end := start + 1
		for end < len(es) && es[end].val == es[start].val {
			end++
		}
		fn(es[start].val, es[start:end])
		start = end
	}
}

// addKeys adds values that no change moved away from. Each value's first new record
// becomes its holder unless the value already has one; only when some value already
// existed (the insert skipped rows) are holders looked up.
func (tx *Tx) addKeys(ix *ruleIndex, adds []uentry, removes map[string][]int64, emptyBefore bool) error {
	var cands []uentry
	groups(adds, func(val string, run []uentry) {
		if removes[val] == nil {
			cands = append(cands, run[0])
		}
	})
	if len(cands) == 0 {
		return nil
	}
	res, err := tx.Exec(`INSERT INTO record_uniques (uc, val, rid) SELECT ?1, substr(value, 20), CAST(substr(value, 1, 19) AS BIGINT) FROM `+tx.Dialect().JSONTexts("?2")+` WHERE true ON CONFLICT DO NOTHING`, ix.uc, entriesJSON(cands))
	if err != nil {
		return errs.Wrap(err, "add unique values")
	}
	inserted, _ := res.RowsAffected()
	existing := map[string][]int64{}
	if !emptyBefore && int(inserted) < len(cands) {
		keys := make([]string, len(cands))
		for i, c := range cands {
			keys[i] = c.val
		}
		holders, err := tx.lookupHolders(ix.uc, keys)
		if err != nil {
			return err
		}
		var taken []string
		for _, c := range cands {
			if h := holders[c.val]; len(h) > 0 && h[0] != c.rid {
				existing[c.val] = h
				taken = append(taken, c.val)
			}
		}
		if existing, err = tx.queryEntries(`SELECT val, rid FROM record_dups WHERE uc = ?1 AND `+tx.Dialect().InTexts("val", "?2"), ix.uc, taken, existing); err != nil {
			return err
		}
	}
	var dups []uentry
	groups(adds, func(val string, run []uentry) {
		if removes[val] != nil {
			return
		}
		old := existing[val]
		if old == nil && len(run) == 1 {
			return
		}
		rids := append([]int64{}, old...)
		for j, e := range run {
			if old != nil || j > 0 {
				dups = append(dups, e)
			}
			rids = append(rids, e.rid)
		}
		ix.entries[val] = rids
	})
	return tx.insertDups(ix.uc, dups)
}

// rewriteKeys recomputes the values changes moved away from: their entries are loaded,
// changed in memory and written back with the lowest key as holder.
func (tx *Tx) rewriteKeys(ix *ruleIndex, adds []uentry, removes map[string][]int64) error {
	keys := make([]string, 0, len(removes))
	for k := range removes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cur, err := tx.lookupHolders(ix.uc, keys)
	if err != nil {
		return err
	}
	dupRows, err := tx.queryEntries(`SELECT val, rid FROM record_dups WHERE uc = ?1 AND `+tx.Dialect().InTexts("val", "?2"), ix.uc, keys, nil)
	if err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM record_uniques WHERE uc = ?1 AND ` + tx.Dialect().InTexts("val", "?2"),
		`DELETE FROM record_dups WHERE uc = ?1 AND ` + tx.Dialect().InTexts("val", "?2")} {
		if _, err := tx.Exec(q, ix.uc, stringsJSON(keys)); err != nil {
			return errs.Wrap(err, "rewrite unique values")
		}
	}
	added := map[string][]int64{}
	groups(adds, func(val string, run []uentry) {
		if removes[val] != nil {
			for _, e := range run {
				added[val] = append(added[val], e.rid)
			}
		}
	})
	var holders, dups []uentry
	for _, k := range keys {
		gone := map[int64]bool{}
		for _, rid := range removes[k] {
			gone[rid] = true
		}
		set := []int64{}
		for _, rid := range append(append(cur[k], dupRows[k]...), added[k]...) {
			if !gone[rid] && !containsInt(set, rid) {
				set = append(set, rid)
			}
		}
		sort.Slice(set, func(a, b int) bool { return set[a] < set[b] })
		ix.entries[k] = set
		if len(set) == 0 {
			continue
		}
		holders = append(holders, uentry{k, set[0]})
		for _, rid := range set[1:] {
			dups = append(dups, uentry{k, rid})
		}
	}
	if len(holders) > 0 {
		if _, err := tx.Exec(`INSERT INTO record_uniques (uc, val, rid) SELECT ?1, substr(value, 20), CAST(substr(value, 1, 19) AS BIGINT) FROM `+tx.Dialect().JSONTexts("?2"), ix.uc, entriesJSON(holders)); err != nil {
			return errs.Wrap(err, "rewrite unique values")
		}
	}
	return tx.insertDups(ix.uc, dups)
}

func (tx *Tx) insertDups(uc int64, dups []uentry) error {
	if len(dups) == 0 {
		return nil
	}
	_, err := tx.Exec(`INSERT INTO record_dups (uc, val, rid) SELECT ?1, substr(value, 20), CAST(substr(value, 1, 19) AS BIGINT) FROM `+tx.Dialect().JSONTexts("?2")+` WHERE true ON CONFLICT DO NOTHING`, uc, entriesJSON(dups))
	if err != nil {
		return errs.Wrap(err, "add duplicate values")
	}
	return nil
}

type uentry struct {
	val string
	rid int64
}

// queryEntries runs an entries query for the keys not in out yet and adds what it finds.
func (tx *Tx) queryEntries(q string, uc int64, keys []string, out map[string][]int64) (map[string][]int64, error) {
	if out == nil {
		out = map[string][]int64{}
	}
	list := make([]string, 0, len(keys))
	for _, k := range keys {
		if _, done := out[k]; !done {
			list = append(list, k)
		}
	}
	if len(list) == 0 {
		return out, nil
	}
	err := sqldb.EachRow(tx.Context(), tx, "look up unique values", q, []any{uc, stringsJSON(list)}, func(rows *sql.Rows) error {
		var v string
		var rid int64
		if err := rows.Scan(&v, &rid); err != nil {
			return errs.Wrap(err, "scan unique value")
		}
		out[v] = append(out[v], rid)
		return nil
	})
	return out, err
}

// lookupHolders returns the holder of each key that has one.
func (tx *Tx) lookupHolders(uc int64, keys []string) (map[string][]int64, error) {
	return tx.queryEntries(`SELECT val, rid FROM record_uniques WHERE uc = ?1 AND `+tx.Dialect().InTexts("val", "?2"), uc, keys, nil)
}

// entriesJSON encodes entries for json_each as strings of the 19-digit key followed by the
// value, which SQLite splits with substr: cheaper than parsing a pair per entry.
func entriesJSON(es []uentry) string {
	var b strings.Builder
	b.Grow(len(es) * 32)
	b.WriteByte('[')
	var num [19]byte
	for i, e := range es {
		if i > 0 {
			b.WriteByte(',')
		}
		n := e.rid
		for j := len(num) - 1; j >= 0; j-- {
			num[j] = byte('0' + n%10)
			n /= 10
		}
		q := records.Quote(e.val)
		b.WriteByte('"')
		b.Write(num[:])
		b.Write(q[1:])
	}
	b.WriteByte(']')
	return b.String()
}

// stringsJSON encodes a list of strings as a JSON array for json_each.
func stringsJSON(list []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(records.Quote(v))
	}
	b.WriteByte(']')
	return b.String()
}

// flipTwins sets or clears unique rules on records outside the write.
func (tx *Tx) flipTwins(rs *stored.Sheet, twins map[int64]map[int64]bool, w *writeCtx, d *countDelta) error {
	if len(twins) == 0 {
		return nil
	}
	rids := make([]int64, 0, len(twins))
	for rid := range twins {
		rids = append(rids, rid)
	}
	sort.Slice(rids, func(i, j int) bool { return rids[i] < rids[j] })
	type twin struct {
		rid       int64
		efs       []string
		old, dups []int64
		row       records.Row // with kept value lists, whose valid counts follow
	}
	var list []twin
	err := sqldb.EachRow(tx.Context(), tx, "load duplicates", `SELECT rid, efs, dups, vals FROM records WHERE `+tx.Dialect().InInts("rid", "?"),
		[]any{stored.RIDsJSON(rids)}, func(rows *sql.Rows) error {
			var t twin
			var efs, dups sql.NullString
			var vals []byte
			if err := rows.Scan(&t.rid, &efs, &dups, &vals); err != nil {
				return errs.Wrap(err, "scan duplicate")
			}
			if d.values != nil {
				row, err := rs.Decode(vals)
				if err != nil {
					return err
				}
				t.row = row
			}
			t.efs, t.old = stored.DecodeEFS(efs), stored.DecodeDups(dups)
			if t.dups = applyFlips(t.old, twins[t.rid]); !sameInts(t.old, t.dups) {
				list = append(list, t)
			}
			return nil
		})
	if err != nil {
		return err
	}
	seq, err := w.seq(tx)
	if err != nil {
		return err
	}
	for _, t := range list {
		d.tallyStatus(rs, t.efs, t.old, -1)
		d.tallyStatus(rs, t.efs, t.dups, 1)
		if was, is := rs.ValidOf(t.efs, t.old), rs.ValidOf(t.efs, t.dups); was != is {
			d.values.tally(t.row, was, -1, false)
			d.values.tally(t.row, is, 1, false)
		}
		tx.noteChanged(rs.SK, 1, func(int) int64 { return t.rid })
		_, err := tx.Exec(`UPDATE records SET dups = ?, valid = ?, vseq = ? WHERE rid = ?`,
			stored.EncodeDups(t.dups), sqldb.BoolInt(rs.ValidOf(t.efs, t.dups)), seq, t.rid)
		if err != nil {
			return errs.Wrap(err, "update duplicate")
		}
	}
	return nil
}

func applyFlips(dups []int64, want map[int64]bool) []int64 {
	out := make([]int64, 0, len(dups)+len(want))
	for _, uc := range dups {
		if v, ok := want[uc]; ok && !v {
			continue
		}
		out = append(out, uc)
	}
	for uc, v := range want {
		if v && !containsInt(out, uc) {
			out = append(out, uc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func containsInt(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func sameInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
