package recordset

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// ftsSlice is how many records one transaction of an FTS5 build adds (about 60 ms of the
// writer each, so other writes wait little).
var ftsSlice = 5000

// buildFTS builds (or goes on building, after a restart) sheet sk's FTS5 index.
func (db *DB) buildFTS(ctx context.Context, sk int64) error {
	name := searchIndexName(sk)
	lo, hi := stored.RIDRange(sk)
	// Writes go first: the build starts once the import that made the sheet big has ended
	// (up to startWaitMax), and before each slice it waits for a quiet second, up to ten
	// times in a row (an import into the sheet or another one meanwhile goes first, then
	// they take turns).
	p := writesPause{db: db, sk: sk}
	if err := p.wait(ctx, startWaitMax); err != nil {
		return err
	}
	err := db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ` + name + ` USING fts5(v, content='', contentless_delete=1, tokenize='trigram')`); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO search_indexes (sk, upto, ready) VALUES (?, ?, 0) ON CONFLICT (sk) DO NOTHING`, sk, lo-1)
		return err
	})
	if err != nil {
		return err
	}
	for done := false; !done; {
		if err := p.wait(ctx, 10); err != nil {
			return err
		}
		if err := db.reads.Wait(ctx, stored.ReadsQuiet, stored.ReadsWaitMax); err != nil {
			return err
		}
		// One core at most, and only while nothing else needs it: a request arriving meanwhile
		// waits for no more than the slice under way (about 60 ms) for the processor, a
		// write for the writer (it gets the connection before the next slice).
		err = db.Update(ctx, func(tx *Tx) error {
			var upto int64
			if err := tx.QueryRow(`SELECT upto FROM search_indexes WHERE sk = ?`, sk).Scan(&upto); err != nil {
				return err // gone: the sheet was purged (or its index dropped) meanwhile
			}
			var next sql.NullInt64
			if err := tx.QueryRow(`SELECT max(rid) FROM (SELECT rid FROM records WHERE rid > ? AND rid <= ? ORDER BY rid LIMIT ?)`, upto, hi, ftsSlice).Scan(&next); err != nil {
				return err
			}
			if !next.Valid {
				done = true
				_, err := tx.Exec(`UPDATE search_indexes SET ready = 1 WHERE sk = ?`, sk)
				return err
			}
			if _, err := tx.Exec(`INSERT INTO `+name+` (rowid, v) SELECT rid, vals FROM records WHERE rid > ? AND rid <= ?`, upto, next.Int64); err != nil {
				return err
			}
			_, err := tx.Exec(`UPDATE search_indexes SET upto = ? WHERE sk = ?`, next.Int64, sk)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ftsCovers returns how far the sheet's FTS5 index (SQLite) reaches, built or being built:
// every record with a key up to it is in the index, kept there by every write; the records
// after it (not yet reached by the build, or an import since) are scanned. ok is false when
// the sheet has no index and searches scan it whole.
func (tx *readCtx) ftsCovers(rs *stored.Sheet) (upto int64, ok bool) {
	if rs.Dialect != sqldb.SQLiteDialect || rs.SK == 0 || rs.Total < tx.q.Settings().SearchIndexMin {
		return 0, false
	}
	err := tx.q.QueryRowContext(tx.ctx, `SELECT upto FROM search_indexes WHERE sk = ?`, rs.SK).Scan(&upto)
	return upto, err == nil
}

// ftsBuilding reports whether the sheet's FTS5 index is being built (or brought up to date).
func (tx *readCtx) ftsBuilding(rs *stored.Sheet) bool {
	if rs.Dialect != sqldb.SQLiteDialect || rs.SK == 0 {
		return false
	}
	var ready int
	err := tx.q.QueryRowContext(tx.ctx, `SELECT ready FROM search_indexes WHERE sk = ?`, rs.SK).Scan(&ready)
	return err == nil && ready == 0
}

// ftsBroad reports whether a search's phrase has candidates in at least a sixteenth of the
// sheet's FTS5 index: then a scan finds them sooner (a search matching all 1,000,000
// records counted in 0.1 s scanning, 0.3 s through the index and its IN list) and a page
// of them comes from the first records scanned. Finding that out stops after as many
// candidates (5 ms at 1,000,000 records).
func (tx *readCtx) ftsBroad(rs *stored.Sheet, phrase string) bool {
	name, most := searchIndexName(rs.SK), max(rs.Total/16, 1)
	var n int64
	err := tx.q.QueryRowContext(tx.ctx, `SELECT count(*) FROM (SELECT rowid FROM `+name+` WHERE `+name+` MATCH ? LIMIT ?)`, phrase, most).Scan(&n)
	return err == nil && n >= most
}

// ftsBulk is the most records one write changes in a sheet's FTS5 index itself. A bigger
// import is left after the index's reach, scanned by searches, and added in the background
// after its commit; bigger edits (find and replace over a sheet) drop the index, which the
// sheet's next search builds again.
var ftsBulk = 1000

// keepFTS brings the sheet's FTS5 index (when it has one) in step with a write: updated and
// deleted records it holds, and new records when they are few and follow straight on from
// what it holds. An update that leaves the values as they were (a revalidation, a change of
// metadata) is left out.
func (tx *Tx) keepFTS(rs *stored.Sheet, changes []*change) error {
	if rs.Dialect != sqldb.SQLiteDialect {
		tx.indexWhenBig(rs, changes)
		return nil
	}
	var upto int64
	var ready int
	err := tx.QueryRow(`SELECT upto, ready FROM search_indexes WHERE sk = ?`, rs.SK).Scan(&upto, &ready)
	if errors.Is(err, sql.ErrNoRows) {
		tx.indexWhenBig(rs, changes)
		return nil
	}
	if err != nil {
		return errs.Wrap(err, "read search index")
	}
	name := searchIndexName(rs.SK)
	var gone []any
	var add, fresh []int64
	for _, c := range changes {
		rid := c.rid()
		switch {
		case c.kind == kRecheck:
		case rid > upto && c.kind == kInsert:
			fresh = append(fresh, rid)
		case rid > upto:
			// beyond the index's reach: the builder reads it as it is
		case c.old != nil && c.new != nil && sameRow(c.old.Row, c.new.Row):
			// the values as they were
		default:
			if c.old != nil {
				gone = append(gone, rid)
			}
			if c.new != nil {
				add = append(add, rid)
			}
		}
	}
	if len(gone) > ftsBulk {
		return tx.dropSearchIndex(rs.SK) // the sheet's next search builds it again
	}
	if len(fresh) > 0 && ready == 1 {
		// New records join the index when they are few and nothing unindexed lies between
		// (while the build is under way, the builder reads them).
		var between bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM records WHERE rid > ? AND rid < ?)`, upto, slices.Min(fresh)).Scan(&between); err != nil {
			return errs.Wrap(err, "read search index")
		}
		if !between && len(fresh) <= ftsBulk {
			add = append(add, fresh...)
			if _, err := tx.Exec(`UPDATE search_indexes SET upto = ? WHERE sk = ?`, slices.Max(fresh), rs.SK); err != nil {
				return errs.Wrap(err, "update search index")
			}
		} else {
			tx.searchBuild = append(tx.searchBuild, rs.SK) // added after the commit
		}
	}
	for len(gone) > 0 {
		n := min(len(gone), 500)
		if _, err := tx.Exec(`DELETE FROM `+name+` WHERE rowid IN (`+sqldb.Placeholders(n)+`)`, gone[:n]...); err != nil {
			return errs.Wrap(err, "update search index")
		}
		gone = gone[n:]
	}
	if len(add) > 0 {
		// The records are written by now: their values are read back as the builder does.
		if _, err := tx.Exec(`INSERT INTO `+name+` (rowid, v) SELECT rid, vals FROM records WHERE rid IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`, stored.RIDsJSON(add)); err != nil {
			return errs.Wrap(err, "update search index")
		}
	}
	return nil
}

// ftsPhrase is an FTS5 phrase matching text as a substring (the trigram tokenizer matches
// it anywhere, folding case), or "" when text is too short for trigrams.
func ftsPhrase(text string) string {
	if len([]rune(text)) < 3 {
		return ""
	}
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}
