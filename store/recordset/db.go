// Package recordset is Sluice's record engine: a sheet's records and their values, writes
// with validation, unique rules and undo, queries and the orders, value lists and counts,
// tallies and search indexes derived from them. The derived data and when each is exact
// are described in docs/architecture.md ("The store's derived data"). It owns its state
// (caches, builds in flight) in DB, stands on store/sqldb's transaction and dialect, and
// knows nothing of the resources (spaces, workbooks, jobs…) in store, which embeds it.
package recordset

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// DB is the database with the record engine's state of this node.
type DB struct {
	*sqldb.DB
	sorts   sortCache   // the full order of recent sorted record queries
	anchors pageAnchors // where deep pages of whole sheets start
	// searchIdx: sheets whose PostgreSQL search index this node built (search_index.go)
	searchIdx searchIndexes
	// valueCounts: fields whose counted values this node is building (distinct_counts.go)
	valueCounts valueCountBuilds
	// reads: requests reading records in flight, which background builds let go first
	reads stored.Foreground
	// writes: when this node last committed a write of records, which background builds
	// also let go first
	writes stored.Foreground
	// pages lets Settings.PageReads record pages be read at once on this node
	// (GetRecords), made at the first read
	pages     chan struct{}
	pagesOnce sync.Once
	// againWrites counts the inserts run again because their guess was wrong (writeCtx.guess)
	againWrites atomic.Int64
}

// New gives an open database its record engine.
func New(core *sqldb.DB) *DB {
	db := &DB{DB: core}
	// other nodes write too: kept orders are checked against the sheet's count of writes
	db.sorts.shared = core.Postgres()
	return db
}

// Tx is a write transaction that keeps the engine's derived data in step with the records
// it changes.
type Tx struct {
	*sqldb.Tx
	db      *DB
	touched map[int64]bool // sheets whose records this transaction changes (sortCache)
	// searchBuild are the sheets whose search index is built after the commit: sheets the
	// write made big, and sheets whose FTS5 index it left records out of (search_fts_sqlite.go).
	searchBuild []int64
	// patches: per sheet, the records the transaction changes, so that kept sorted orders
	// are patched rather than dropped (sortcache.go)
	patches map[int64]*sheetPatch
	// early is what an insert reserved before its sheet was loaded (reserveEarly).
	early *earlyReserve
}

// Begin begins a write transaction (sqldb.DB.Begin).
func (db *DB) Begin(ctx context.Context) (*Tx, error) { return db.engineTx(db.DB.Begin(ctx)) }

// BeginSheet begins a write of the records of sheetID (sqldb.DB.BeginSheet).
func (db *DB) BeginSheet(ctx context.Context, sheetID string) (*Tx, error) {
	return db.engineTx(db.DB.BeginSheet(ctx, sheetID))
}

// engineTx gives a begun transaction the engine's bookkeeping.
func (db *DB) engineTx(tx *sqldb.Tx, err error) (*Tx, error) {
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, db: db}, nil
}

// Commit commits, then brings this node's kept orders up to date with what the transaction
// changed and starts the search index builds it asked for.
func (tx *Tx) Commit() error {
	if err := tx.Tx.Commit(); err != nil {
		return err
	}
	db := tx.db
	db.sorts.bump(tx.touched, tx.patches)
	if len(tx.touched) > 0 {
		db.writes.Done()
	}
	for _, sk := range tx.searchBuild {
		db.startSearchIndex(sk)
	}
	return nil
}

// Update runs fn inside one write transaction and commits when fn returns nil.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := db.Begin(ctx)
	return sqldb.Run(tx, err, fn)
}

// UpdateSheet runs fn inside one write of the records of sheetID (sqldb.DB.BeginSheet): on
// PostgreSQL it runs beside the writes of other sheets' records. fn writes that sheet's
// records and what derives from them, and no resource but its own rows (a version, its
// events, undo entries, job writes, the space's activity).
func (db *DB) UpdateSheet(ctx context.Context, sheetID string, fn func(tx *Tx) error) error {
	tx, err := db.BeginSheet(ctx, sheetID)
	return sqldb.Run(tx, err, fn)
}

// pageTurn waits for this node's turn to read a page of records (Settings.PageReads) and
// returns the function that gives it back.
func (db *DB) pageTurn(ctx context.Context) (func(), error) {
	db.pagesOnce.Do(func() { db.pages = make(chan struct{}, db.Settings().PageReads) })
	select {
	case db.pages <- struct{}{}:
		return func() { <-db.pages }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
