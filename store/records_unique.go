package store

import (
	"database/sql"
	"sort"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
)

type uentry struct {
	val string
	rid int64
}

// reconcileUniques updates the unique-value index for the changes and sets each new state's
// dups. Records outside the write whose duplicate status flips (the twins of a value that
// became or stopped being a duplicate) are rewritten here with their counts adjusted.
func (tx *Tx) reconcileUniques(rs *recSheet, changes []*change, w *writeCtx, d *countDelta) error {
	if len(rs.Schema.Uniques) == 0 {
		return nil
	}
	inWrite := make(map[int64]bool, len(changes))
	for _, c := range changes {
		inWrite[c.rid()] = true
	}
	twins := map[int64]map[int64]bool{} // rid → uc → should be a duplicate
	for _, u := range rs.Schema.Uniques {
		uc := rs.ucOf[u]
		entries, err := tx.moveUniqueKeys(rs, u, uc, changes, w.emptyBefore)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if c.new == nil {
				continue
			}
			if k, ok := u.UniqueKey(c.new.row); ok && len(entries[k]) >= 2 {
				c.new.dups = append(c.new.dups, uc)
			}
		}
		for _, rids := range entries {
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
			sort.Slice(c.new.dups, func(i, j int) bool { return c.new.dups[i] < c.new.dups[j] })
		}
	}
	return tx.flipTwins(rs, twins, w, d)
}

// moveUniqueKeys removes the old keys and adds the new keys of one rule, and returns every
// index entry of the keys the changes touch.
func (tx *Tx) moveUniqueKeys(rs *recSheet, u *records.Unique, uc int64, changes []*change, emptyBefore bool) (map[string][]int64, error) {
	var del, add []uentry
	keys := map[string]bool{}
	for _, c := range changes {
		var ok, nk string
		var oh, nh bool
		if c.old != nil && c.kind != kRecheck {
			ok, oh = u.UniqueKey(c.old.row)
		}
		if c.new != nil {
			nk, nh = u.UniqueKey(c.new.row)
		}
		if oh && nh && ok == nk {
			keys[nk] = true
			continue
		}
		if oh {
			del = append(del, uentry{ok, c.rid()})
			keys[ok] = true
		}
		if nh {
			add = append(add, uentry{nk, c.rid()})
			keys[nk] = true
		}
	}
	for _, e := range del {
		if _, err := tx.exec(`DELETE FROM record_uniques WHERE uc = ? AND val = ? AND rid = ?`, uc, e.val, e.rid); err != nil {
			return nil, errs.Wrap(err, "remove unique value")
		}
	}
	if err := tx.insertUniqueKeys(uc, add); err != nil {
		return nil, err
	}
	if emptyBefore {
		// The index held nothing of this sheet before the write: the entries are the ones just added.
		out := make(map[string][]int64, len(add))
		for _, e := range add {
			out[e.val] = append(out[e.val], e.rid)
		}
		return out, nil
	}
	return tx.lookupUniqueKeys(uc, keys)
}

const uniqueChunk = 300

func (tx *Tx) insertUniqueKeys(uc int64, add []uentry) error {
	// Sorted inserts touch the index b-tree in order.
	sort.Slice(add, func(i, j int) bool { return add[i].val < add[j].val })
	for start := 0; start < len(add); start += uniqueChunk {
		chunk := add[start:min(start+uniqueChunk, len(add))]
		args := make([]any, 0, 3*len(chunk))
		for _, e := range chunk {
			args = append(args, uc, e.val, e.rid)
		}
		if _, err := tx.exec(`INSERT OR IGNORE INTO record_uniques (uc, val, rid) VALUES `+rowMarks(len(chunk), 3), args...); err != nil {
			return errs.Wrap(err, "add unique values")
		}
	}
	return nil
}

func (tx *Tx) lookupUniqueKeys(uc int64, keys map[string]bool) (map[string][]int64, error) {
	list := make([]string, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	sort.Strings(list)
	out := make(map[string][]int64, len(list))
	for start := 0; start < len(list); start += 500 {
		chunk := list[start:min(start+500, len(list))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, uc)
		for _, k := range chunk {
			args = append(args, k)
		}
		rows, err := tx.QueryContext(tx.ctx, `SELECT val, rid FROM record_uniques WHERE uc = ? AND val IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, errs.Wrap(err, "look up unique values")
		}
		for rows.Next() {
			var v string
			var rid int64
			if err := rows.Scan(&v, &rid); err != nil {
				rows.Close()
				return nil, errs.Wrap(err, "scan unique value")
			}
			out[v] = append(out[v], rid)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, errs.Wrap(err, "look up unique values")
		}
	}
	return out, nil
}

// flipTwins sets or clears unique rules on records outside the write.
func (tx *Tx) flipTwins(rs *recSheet, twins map[int64]map[int64]bool, w *writeCtx, d *countDelta) error {
	if len(twins) == 0 {
		return nil
	}
	rids := make([]int64, 0, len(twins))
	for rid := range twins {
		rids = append(rids, rid)
	}
	sort.Slice(rids, func(i, j int) bool { return rids[i] < rids[j] })
	for start := 0; start < len(rids); start += 500 {
		chunk := rids[start:min(start+500, len(rids))]
		args := make([]any, len(chunk))
		for i, r := range chunk {
			args[i] = r
		}
		type twin struct {
			rid       int64
			efs       []string
			old, dups []int64
		}
		var list []twin
		rows, err := tx.QueryContext(tx.ctx, `SELECT rid, efs, dups FROM records WHERE rid IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return errs.Wrap(err, "load duplicates")
		}
		for rows.Next() {
			var t twin
			var efs, dups sql.NullString
			if err := rows.Scan(&t.rid, &efs, &dups); err != nil {
				rows.Close()
				return errs.Wrap(err, "scan duplicate")
			}
			t.efs, t.old = decodeEFS(efs), decodeDups(dups)
			t.dups = applyFlips(t.old, twins[t.rid])
			if !sameInts(t.old, t.dups) {
				list = append(list, t)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return errs.Wrap(err, "load duplicates")
		}
		for _, t := range list {
			d.tallyStatus(rs, t.efs, t.old, -1)
			d.tallyStatus(rs, t.efs, t.dups, 1)
			_, err := tx.exec(`UPDATE records SET dups = ?, valid = ?, vseq = ?, updated_at = ? WHERE rid = ?`,
				encodeDups(t.dups), boolInt(rs.validOf(t.efs, t.dups)), w.vseq, ms(tx.now), t.rid)
			if err != nil {
				return errs.Wrap(err, "update duplicate")
			}
			w.touched++
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

// rowMarks returns n groups of k placeholders for a multi-row VALUES list.
func rowMarks(n, k int) string {
	one := "(" + placeholders(k) + ")"
	b := make([]byte, 0, n*(len(one)+2))
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, one...)
	}
	return string(b)
}
