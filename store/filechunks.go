package store

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"io/fs"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// ChunkSize is the most bytes one row of file_chunks holds.
const ChunkSize = 1 << 20

// PutFileBytes stores r's bytes as file id's, chunk by chunk, replacing any it had, in one
// transaction (one flush to disk, and no half-stored file). The rows are written outside
// the single-writer order (they emit nothing): a file is only reachable once its record is
// created. PostgreSQL only.
func (db *DB) PutFileBytes(ctx context.Context, id string, r io.Reader) (int64, error) {
	tx, err := db.Writer.BeginTx(ctx)
	if err != nil {
		return 0, errs.Wrap(err, "store file bytes")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM file_chunks WHERE file_id = ?`, id); err != nil {
		return 0, errs.Wrap(err, "replace file bytes")
	}
	buf := make([]byte, ChunkSize)
	var total int64
	for n := 0; ; n++ {
		k, err := io.ReadFull(r, buf)
		if k > 0 || n == 0 { // an empty file has one empty chunk: it exists
			if _, werr := tx.ExecContext(ctx, `INSERT INTO file_chunks (file_id, n, data, created_at) VALUES (?, ?, ?, ?)`,
				id, n, buf[:k], sqldb.Millis(db.Now())); werr != nil {
				return total, errs.Wrap(werr, "store file bytes")
			}
			total += int64(k)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return total, errs.Wrap(err, "read file bytes")
		}
	}
	if err := tx.Commit(); err != nil {
		return total, errs.Wrap(err, "store file bytes")
	}
	return total, nil
}

// RemoveFileBytes deletes file id's stored bytes.
func (db *DB) RemoveFileBytes(ctx context.Context, id string) error {
	if _, err := db.Writer.ExecContext(ctx, `DELETE FROM file_chunks WHERE file_id = ?`, id); err != nil {
		return errs.Wrap(err, "remove file bytes")
	}
	return nil
}

// RemoveOrphanFileBytes deletes chunks older than cutoff of files that were never recorded
// (an upload whose node stopped between storing the bytes and creating the file).
func (db *DB) RemoveOrphanFileBytes(ctx context.Context, cutoffMS int64) (int64, error) {
	res, err := db.Writer.ExecContext(ctx, `DELETE FROM file_chunks c WHERE c.created_at < ? AND NOT EXISTS (SELECT 1 FROM files f WHERE f.id = c.file_id)`, cutoffMS)
	if err != nil {
		return 0, errs.Wrap(err, "remove orphan file bytes")
	}
	return res.RowsAffected()
}

// FileBytes reads a file's stored bytes one chunk at a time; it seeks, so it can answer
// range requests.
type FileBytes struct {
	db    *DB
	ctx   context.Context
	id    string
	size  int64
	off   int64
	chunk []byte // the chunk holding off, when loaded
	at    int64  // its number
}

// OpenFileBytes opens file id's stored bytes. Errors: fs.ErrNotExist when it has none.
func (db *DB) OpenFileBytes(ctx context.Context, id string) (*FileBytes, error) {
	var size sql.NullInt64
	var n int64
	if err := db.Reader.QueryRowContext(ctx, `SELECT count(*), sum(length(data)) FROM file_chunks WHERE file_id = ?`, id).Scan(&n, &size); err != nil {
		return nil, errs.Wrap(err, "open file bytes")
	}
	if n == 0 {
		return nil, fs.ErrNotExist
	}
	return &FileBytes{db: db, ctx: ctx, id: id, size: size.Int64, at: -1}, nil
}

// Size is the number of bytes.
func (f *FileBytes) Size() int64 { return f.size }

// Read reads from the current offset.
func (f *FileBytes) Read(p []byte) (int, error) {
	if f.off >= f.size {
		return 0, io.EOF
	}
	n := f.off / ChunkSize
	if n != f.at {
		f.chunk = f.chunk[:0]
		if err := f.db.Reader.QueryRowContext(f.ctx, `SELECT data FROM file_chunks WHERE file_id = ? AND n = ?`, f.id, n).Scan(&f.chunk); err != nil {
			return 0, errs.Wrap(err, "read file bytes")
		}
		f.at = n
	}
	k := copy(p, f.chunk[f.off-n*ChunkSize:])
	f.off += int64(k)
	return k, nil
}

// Seek sets the offset for the next Read.
func (f *FileBytes) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.size
	}
	if offset < 0 {
		return f.off, errors.New("seek before the start")
	}
	f.off = offset
	return offset, nil
}

// Close releases the reader.
func (f *FileBytes) Close() error { f.chunk = nil; return nil }
