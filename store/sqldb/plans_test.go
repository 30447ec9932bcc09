package sqldb

import "testing"

// The readers plan every statement for its arguments (a sheet's partial search index needs
// them); the writers let PostgreSQL keep a plan made once, but for a write that asks
// (PlanEachRun), and only until it ends.
func TestPlanModes(t *testing.T) {
	db, err := OpenDSN(postgresOnly(t, "plan modes are PostgreSQL's"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	mode := func(q Querier) string {
		t.Helper()
		var m string
		if err := q.QueryRowContext(ctx, `SELECT current_setting('plan_cache_mode')`).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := mode(db.Reader); m != "force_custom_plan" {
		t.Errorf("the readers plan %q, want force_custom_plan", m)
	}
	tx, err := db.BeginSheet(ctx, "us_sh_plans")
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(tx); m != "auto" {
		t.Errorf("a write plans %q, want auto", m)
	}
	if err := tx.PlanEachRun(); err != nil {
		t.Fatal(err)
	}
	if m := mode(tx); m != "force_custom_plan" {
		t.Errorf("a write that asked plans %q, want force_custom_plan", m)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The connection goes back to the pool as it was: the next write plans as before.
	for range 8 {
		if m := mode(db.Writer); m != "auto" {
			t.Fatalf("a writer after a write that asked plans %q, want auto", m)
		}
	}
	// The lookups (and pages of whole sheets) keep their plans, on a connection for each page
	// read at once beside the lookups' own.
	if m := mode(db.Lookup); m != "auto" {
		t.Errorf("the lookups plan %q, want auto", m)
	}
	db.Reconfigure(func(s *Settings) { s.PageReads = 3 })
	if n := db.Lookup.Stats().MaxOpenConnections; n != LookupConns+3 {
		t.Errorf("the lookups have %d connections with 3 page reads at once, want %d", n, LookupConns+3)
	}
}
