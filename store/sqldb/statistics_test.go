package sqldb

import (
	"strings"
	"testing"
	"time"
)

// A statement on a connection that keeps its plans (the lookup and writer pools), planned while
// its table was empty, kept scanning the whole table as it filled: autovacuum counts a table
// at most once a minute. KeepStatistics counts a table that grew, and the statement is planned
// again from the new counts.
func TestKeepStatisticsReplansGrownTables(t *testing.T) {
	url := postgresOnly(t, "PostgreSQL's plans and statistics")
	db, err := OpenDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	conn, err := db.Lookup.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	run := func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plan := func() string {
		t.Helper()
		rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE page('[5, 500, 5000]')`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	run(`CREATE TABLE grow_probe (rid BIGINT PRIMARY KEY, v TEXT NOT NULL)`)
	run(`ANALYZE grow_probe`) // counted empty, as a fresh database's tables are
	run(`PREPARE page(jsonb) AS SELECT rid, v FROM grow_probe WHERE rid = ANY(ARRAY(SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text($1) AS value))`)
	for range 6 { // past the custom plans PostgreSQL tries first: the generic one stays
		run(`EXECUTE page('[1, 2]')`)
	}
	run(`INSERT INTO grow_probe SELECT g, repeat('x', 100) FROM generate_series(1, 50000) AS g`)
	if p := plan(); !strings.Contains(p, "Seq Scan") {
		t.Fatalf("the plan made on the empty table reads by key: the setup no longer shows what this test is about:\n%s", p)
	}
	run(`SELECT pg_stat_force_next_flush()`)
	deadline := time.Now().Add(15 * time.Second)
	for {
		run(`SELECT 1`) // the counts of this session's insert reach the statistics when it goes idle
		grew, err := db.KeepStatistics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(grew) == 1 && grew[0] == "grow_probe" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("KeepStatistics named %v, want [grow_probe], after 15 s", grew)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if p := plan(); strings.Contains(p, "Seq Scan") {
		t.Fatalf("still scanning the whole table after its statistics were counted:\n%s", p)
	}
	// Counted once, the table is left alone until it doubles again.
	if grew, err := db.KeepStatistics(ctx); err != nil || len(grew) != 0 {
		t.Fatalf("second run named %v, %v; want nothing", grew, err)
	}
}
