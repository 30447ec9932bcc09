// Package store keeps Sluice's resources — accounts, environments, spaces, workbooks and
// sheets, files, jobs, events, agents, tokens, secrets… — on the database of store/sqldb,
// with the record engine of store/recordset embedded in DB and Tx, so a caller reaches both
// through one handle. Nothing here knows about HTTP.
package store

import (
	"context"

	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// DB is the database with its record engine.
type DB struct {
	*recordset.DB
	// Sealer encrypts API keys at rest under the master key; set it before the first key is
	// written (cmd/sluice does, then calls SealKeys). Without it keys are stored hashed only.
	Sealer Sealer
}

// Sealer encrypts and decrypts values with a key kept outside the database.
type Sealer interface {
	Seal(plain []byte) []byte
	Open(sealed []byte) ([]byte, error)
}

// Tx is a write transaction with the time fixed once for everything it writes.
type Tx struct {
	*recordset.Tx
	sealer Sealer
}

func wrap(core *sqldb.DB, err error) (*DB, error) {
	if err != nil {
		return nil, err
	}
	return &DB{DB: recordset.New(core)}, nil
}

// Open opens (creating when missing) the SQLite database file at path and applies migrations.
func Open(path string) (*DB, error) { return wrap(sqldb.Open(path)) }

// OpenPostgres opens the PostgreSQL database at url and applies the PostgreSQL migrations.
// Several Sluice nodes may share it.
func OpenPostgres(url string) (*DB, error) { return wrap(sqldb.OpenPostgres(url)) }

// OpenDSN opens a database setting: a postgres:// URL or a SQLite file path.
func OpenDSN(dsn string) (*DB, error) { return wrap(sqldb.OpenDSN(dsn)) }

// Update runs fn inside one write transaction and commits when fn returns nil.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	rtx, err := db.DB.Begin(ctx)
	if err != nil {
		return err
	}
	return sqldb.Run(&Tx{Tx: rtx, sealer: db.Sealer}, nil, fn)
}
