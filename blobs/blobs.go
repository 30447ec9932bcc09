// Package blobs keeps the bytes of uploaded and exported files: in a folder on the node's
// disk beside SQLite, or in the database with PostgreSQL, so every node serves what any node
// received. Both stream: no file is ever whole in memory.
package blobs

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/sluice/sluice/store"
)

// File is a stored file's bytes, opened for reading.
type File interface {
	io.ReadSeekCloser
	Size() int64
}

// Store keeps files' bytes by file id. Bytes arrive as a complete file in Staging (an upload
// is received there first, an export is written there), so a broken upload stores nothing.
type Store interface {
	// Staging is the node's folder for files still being received or written.
	Staging() string
	// Put takes the complete file at tmp (in Staging) as id's bytes; tmp is gone afterwards.
	Put(ctx context.Context, id, tmp string) error
	// Open reads id's bytes. Errors: fs.ErrNotExist when there are none.
	Open(ctx context.Context, id string) (File, error)
	// Local is a path holding id's bytes for readers that need a file (zip archives), and
	// the function to call when done with it.
	Local(ctx context.Context, id string) (string, func(), error)
	// Remove deletes id's bytes; it is not an error when there are none.
	Remove(ctx context.Context, id string) error
}

// Disk keeps each file's bytes as Dir/<id>.
type Disk struct{ Dir string }

func (d Disk) Staging() string { return d.Dir }

func (d Disk) Put(ctx context.Context, id, tmp string) error {
	return os.Rename(tmp, filepath.Join(d.Dir, id))
}

func (d Disk) Open(ctx context.Context, id string) (File, error) {
	f, err := os.Open(filepath.Join(d.Dir, id))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return diskFile{f, st.Size()}, nil
}

type diskFile struct {
	*os.File
	size int64
}

func (f diskFile) Size() int64 { return f.size }

func (d Disk) Local(ctx context.Context, id string) (string, func(), error) {
	return filepath.Join(d.Dir, id), func() {}, nil
}

func (d Disk) Remove(ctx context.Context, id string) error {
	if err := os.Remove(filepath.Join(d.Dir, id)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Database keeps files' bytes in the database's file_chunks (PostgreSQL); Dir is the node's
// staging folder.
type Database struct {
	DB  *store.DB
	Dir string
}

func (d Database) Staging() string { return d.Dir }

func (d Database) Put(ctx context.Context, id, tmp string) error {
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	defer f.Close()
	_, err = d.DB.PutFileBytes(ctx, id, f)
	return err
}

func (d Database) Open(ctx context.Context, id string) (File, error) {
	return d.DB.OpenFileBytes(ctx, id)
}

// Local copies the bytes into the staging folder; done removes the copy.
func (d Database) Local(ctx context.Context, id string) (string, func(), error) {
	src, err := d.DB.OpenFileBytes(ctx, id)
	if err != nil {
		return "", nil, err
	}
	defer src.Close()
	out, err := os.CreateTemp(d.Dir, id+"-*.part") // .part: removed at start if left behind
	if err != nil {
		return "", nil, err
	}
	done := func() { os.Remove(out.Name()) }
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		done()
		return "", nil, err
	}
	if err := out.Close(); err != nil {
		done()
		return "", nil, err
	}
	return out.Name(), done, nil
}

func (d Database) Remove(ctx context.Context, id string) error { return d.DB.RemoveFileBytes(ctx, id) }

// For is the store a database keeps files in: its own with PostgreSQL, else dir.
func For(db *store.DB, dir string) Store {
	if db.Postgres() {
		return Database{DB: db, Dir: dir}
	}
	return Disk{Dir: dir}
}
