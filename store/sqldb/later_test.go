package sqldb

import (
	"strings"
	"testing"
)

// Statements held back (Later) run in order with the transaction's next statement: what
// they wrote is read by the next query, LaterScan's row is there after it, the commit sends
// what is left, and a held statement that fails fails the statement that sent it, every one
// after it and the commit, naming itself — and nothing of the transaction stays.
func TestLaterStatements(t *testing.T) {
	db, err := OpenDSN(TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	value := func(key string) (string, bool) {
		var v string
		err := db.Reader.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
		return v, err == nil
	}

	tx, err := db.BeginSheet(ctx, "us_sh_later")
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Later("first", `INSERT INTO settings (key, value) VALUES (?, ?)`, "later.a", "1"); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := tx.LaterScan("second", `UPDATE settings SET value = ? WHERE key = ? RETURNING CAST(value AS BIGINT) + 1`, []any{&n}, "41", "later.a"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := tx.QueryRow(`SELECT value FROM settings WHERE key = ?`, "later.a").Scan(&got); err != nil || got != "41" || n != 42 {
		t.Fatalf("after the held statements a query reads %q (%v) and the scanned row is %d, want 41 and 42", got, err, n)
	}
	if err := tx.Later("third", `INSERT INTO settings (key, value) VALUES (?, ?)`, "later.b", "2"); err != nil {
		t.Fatal(err)
	}
	if res, err := tx.Exec(`UPDATE settings SET value = ? WHERE key IN (?, ?)`, "3", "later.a", "later.b"); err != nil {
		t.Fatal(err)
	} else if k, _ := res.RowsAffected(); k != 2 {
		t.Errorf("an Exec sent with a held insert affected %d rows, want 2 (the insert runs first)", k)
	}
	if err := tx.Later("fourth", `INSERT INTO settings (key, value) VALUES (?, ?)`, "later.c", "4"); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := tx.LaterRows("rows", `SELECT key, value FROM settings WHERE key LIKE 'later.%' ORDER BY key`, func(scan func(...any) error) error {
		var k, v string
		err := scan(&k, &v)
		seen = append(seen, k+"="+v)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "later.a=3 later.b=3 later.c=4" {
		t.Errorf("LaterRows sent with the commit read %q, want the three rows", got)
	}
	for key, want := range map[string]string{"later.a": "3", "later.b": "3", "later.c": "4"} {
		if v, ok := value(key); !ok || v != want {
			t.Errorf("%s = %q (%v) after the commit, want %q", key, v, ok, want)
		}
	}

	tx, err = db.BeginSheet(ctx, "us_sh_later")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, "later.d", "5"); err != nil {
		t.Fatal(err)
	}
	err = tx.Later("the duplicate", `INSERT INTO settings (key, value) VALUES (?, ?)`, "later.a", "6")
	if err == nil {
		if _, err = tx.Exec(`UPDATE settings SET value = ? WHERE key = ?`, "7", "later.d"); err == nil {
			err = tx.Commit()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "the duplicate") {
		t.Fatalf("a held statement that fails: %v, want its error, named", err)
	}
	if db.Postgres() {
		if err := tx.Commit(); err == nil || !strings.Contains(err.Error(), "the duplicate") {
			t.Errorf("the commit after a held statement failed: %v, want its error", err)
		}
	}
	_ = tx.Rollback()
	if v, ok := value("later.d"); ok {
		t.Errorf("a transaction whose held statement failed left later.d = %q", v)
	}
	if v, _ := value("later.a"); v != "3" {
		t.Errorf("later.a = %q after the failed transaction, want 3", v)
	}

	// A transaction abandoned before it sent anything (its BEGIN still held), and one
	// abandoned half way, leave connections that the next transactions use as new.
	for _, half := range []bool{false, true} {
		tx, err := db.BeginSheet(ctx, "us_sh_later")
		if err != nil {
			t.Fatal(err)
		}
		if half {
			if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, "later.e", "8"); err != nil {
				t.Fatal(err)
			}
		}
		_ = tx.Rollback()
	}
	for range 3 {
		if err := db.Update(ctx, func(tx *Tx) error {
			_, err := tx.Exec(`UPDATE settings SET value = value WHERE key = ?`, "later.a")
			return err
		}); err != nil {
			t.Fatalf("a transaction after abandoned ones: %v", err)
		}
	}
	if v, ok := value("later.e"); ok {
		t.Errorf("an abandoned transaction left later.e = %q", v)
	}
}
