// Package blobs keeps the bytes of uploaded and exported files: in a folder on the node's
// disk beside SQLite, or in the database with PostgreSQL, so every node serves what any node
// received. Both stream: no file is ever whole in memory.
package blobs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// Put stores the bytes in the database and keeps tmp as this node's copy (<id>.copy): the
// extraction that usually follows an upload on the same node reads it instead of the
// database. Copies are removed when read by Local, with the file, at start and after an hour
// (RemoveCopies).
func (d Database) Put(ctx context.Context, id, tmp string) error {
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	_, err = d.DB.PutFileBytes(ctx, id, f)
	f.Close()
	if err != nil || os.Rename(tmp, d.copyPath(id)) != nil {
		os.Remove(tmp)
	}
	return err
}

func (d Database) copyPath(id string) string { return filepath.Join(d.Dir, id+CopySuffix) }

func (d Database) Open(ctx context.Context, id string) (File, error) {
	return d.DB.OpenFileBytes(ctx, id)
}

// Local hands over this node's copy when it has one, else copies the bytes into the staging
// folder; done removes the copy.
func (d Database) Local(ctx context.Context, id string) (string, func(), error) {
	if p := d.copyPath(id); fileExists(p) {
		return p, func() { os.Remove(p) }, nil
	}
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

func (d Database) Remove(ctx context.Context, id string) error {
	os.Remove(d.copyPath(id))
	return d.DB.RemoveFileBytes(ctx, id)
}

// CopySuffix ends the names of the local copies a Database store keeps of what it received.
const CopySuffix = ".copy"

// RemoveCopies deletes the local copies in dir last written before cutoff (those another
// node extracted) and reports how many it removed.
func RemoveCopies(dir string, cutoff time.Time) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), CopySuffix) {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) && os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// For is the store a database keeps files in: its own with PostgreSQL, else dir.
func For(db *store.DB, dir string) Store {
	if db.Postgres() {
		return Database{DB: db, Dir: dir}
	}
	return Disk{Dir: dir}
}
