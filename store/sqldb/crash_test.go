package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
)

// Writes of a sheet's records commit without waiting for the disk and are answered only
// once a later commit has flushed the WAL past them (Tx.Commit), as is a write that waits
// for the flush itself (FlushWAL): PostgreSQL killed outright while such writes run, then
// started again, still has every write that was answered. The server is a private one the
// test starts (initdb) with its WAL writer asleep for 10 s, so that nothing but the commit's
// own confirmation puts a write on disk in time.
func TestAnsweredWritesSurvivePostgresKilled(t *testing.T) {
	skipOnSQLite(t, "PostgreSQL's: SQLite commits on disk")
	pg := startPrivatePostgres(t)
	db, err := OpenDSN(pg.url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var mu sync.Mutex
	var answered []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// writer writes until stopped or failing: write(id) is answered when it returns nil.
	writer := func(prefix string, write func(id string) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("%s-%d", prefix, i)
				if err := write(id); err != nil {
					return
				}
				mu.Lock()
				answered = append(answered, id)
				mu.Unlock()
			}
		}()
	}
	for w := range 6 {
		writer(fmt.Sprintf("ev-%d", w), func(id string) error {
			tx, err := db.BeginSheet(ctx, fmt.Sprintf("us_sh_crash%d", w))
			if err != nil {
				return err
			}
			tx.AddEvent(&model.Event{ID: id, Topic: "records:created", Domain: "workbook",
				Context: model.EventContext{AccountID: "acc", EnvironmentID: "env"}, CreatedAt: tx.now, Payload: []byte("{}")})
			return tx.Commit()
		})
	}
	// And a write that commits without waiting by itself, then waits in FlushWAL.
	writer("ev-flush", func(id string) error {
		if err := db.UpdateRows(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(`SET LOCAL synchronous_commit = off`); err != nil {
				return err
			}
			_, err := tx.Exec(`INSERT INTO event_inbox (`+eventColumnNames+`) VALUES (?, 'acc', 'env', '', 'workbook', 'records:created', '{}', '{}', '', '', '[]', 0)`, id)
			return err
		}); err != nil {
			return err
		}
		return db.FlushWAL(ctx)
	})
	time.Sleep(1500 * time.Millisecond)
	pg.kill()
	close(stop)
	wg.Wait()
	db.Close()
	if len(answered) < 50 {
		t.Fatalf("only %d writes were answered before the kill: the test proves nothing", len(answered))
	}

	pg.start()
	check, err := OpenDSN(pg.url)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	found := map[string]bool{}
	for _, table := range []string{"events", "event_inbox"} {
		if err := EachRow(ctx, check.Reader, "read events", `SELECT id FROM `+table, nil, func(rows *sql.Rows) error {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			found[id] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var lost []string
	for _, id := range answered {
		if !found[id] {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		t.Fatalf("%d of %d answered writes are gone after PostgreSQL was killed: %v", len(lost), len(answered), lost[:min(len(lost), 10)])
	}
	flushed := 0
	for _, id := range answered {
		if strings.HasPrefix(id, "ev-flush-") {
			flushed++
		}
	}
	if flushed == 0 {
		t.Fatal("no write that waited in FlushWAL was answered before the kill")
	}
	t.Logf("%d answered writes (%d of them through FlushWAL), all there after the kill", len(answered), flushed)
}

// privatePostgres is a PostgreSQL server of one test's own, which it may kill.
type privatePostgres struct {
	t          *testing.T
	bin, data  string
	url        string
	port       int
	asPostgres []string // the command prefix that runs as the postgres user (as root)
	cmd        *exec.Cmd
}

// startPrivatePostgres makes and starts a server with Debian's PostgreSQL binaries, skipping
// the test where there are none.
func startPrivatePostgres(t *testing.T) *privatePostgres {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		t.Skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin) to start a server of the test's own")
	}
	sort.Strings(found)
	pg := &privatePostgres{t: t, bin: filepath.Dir(found[len(found)-1])}
	dir, err := os.MkdirTemp("", "sluice-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 { // (PostgreSQL refuses to run as root)
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		pg.asPostgres = []string{"runuser", "-u", "postgres", "--"}
	}
	pg.data = filepath.Join(dir, "data")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pg.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	pg.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pg.port)
	if out, err := pg.command("initdb", "-D", pg.data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	pg.start()
	t.Cleanup(pg.kill)
	return pg
}

func (pg *privatePostgres) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), pg.asPostgres...), filepath.Join(pg.bin, name)), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// start starts the server (again, recovering after a kill) and waits until it answers.
func (pg *privatePostgres) start() {
	pg.cmd = pg.command("postgres", "-D", pg.data, "-p", strconv.Itoa(pg.port), "-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=", "-c", "wal_writer_delay=10s", "-c", "max_connections=60")
	logFile, err := os.OpenFile(pg.data+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		pg.t.Fatal(err)
	}
	defer logFile.Close()
	pg.cmd.Stdout, pg.cmd.Stderr = logFile, logFile
	if err := pg.cmd.Start(); err != nil {
		pg.t.Fatal(err)
	}
	probe, err := sql.Open("pgx", pg.url)
	if err != nil {
		pg.t.Fatal(err)
	}
	defer probe.Close()
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := probe.PingContext(ctx)
		cancel()
		if err == nil {
			return
		}
		if i > 150 {
			out, _ := os.ReadFile(pg.data + ".log")
			pg.t.Fatalf("the test's PostgreSQL did not start: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill stops the server as a crash does (the immediate shutdown: SIGQUIT to the postmaster,
// which has every process quit at once, nothing written): the WAL its shared memory held
// and no one had written yet is gone. (A SIGKILL of the postmaster alone would leave its
// backends running on: each leads a process group of its own.)
func (pg *privatePostgres) kill() {
	if pg.cmd == nil {
		return
	}
	if pid, err := os.ReadFile(filepath.Join(pg.data, "postmaster.pid")); err == nil {
		if p, err := strconv.Atoi(strings.SplitN(string(pid), "\n", 2)[0]); err == nil && p > 0 {
			_ = syscall.Kill(p, syscall.SIGQUIT)
		}
	}
	_ = pg.cmd.Wait()
	pg.cmd = nil
}
