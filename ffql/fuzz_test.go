package ffql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/limits"
)

// FuzzFFQL: any text either fails to parse with an error, or parses into a query whose SQL
// runs on SQLite, binds every value as an argument (as many ? as arguments) and never
// splices the query's quoted text into the SQL.
func FuzzFFQL(f *testing.F) {
	for _, q := range []string{`name eq Fry`, `"Full Name" eq Fry`, `age gt 10 and (active eq true or tags contains robot)`,
		`name like "B%"`, `is:error`, `name is:valid`, `not (age lte 25)`, `age eq "a\"b"`, `a.b in [x, "y z"]`, `name ilike "%'; DROP TABLE r; --"`} {
		f.Add(q)
	}
	db := mustOpenTable(f)
	f.Fuzz(func(t *testing.T, q string) {
		var e ffql.Expr
		var err error
		done := make(chan struct{})
		go func() { e, err = ffql.Parse(q, limits.Default().FFQLTerms); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("Parse(%q) runs for more than 2 s", q)
		}
		if err != nil {
			return
		}
		frag, err := ffql.Translate(e, testFields, cols{})
		if err != nil {
			return
		}
		if n := strings.Count(frag.SQL, "?"); n != len(frag.Args) {
			t.Fatalf("%q: %d placeholders, %d arguments: %s", q, n, len(frag.Args), frag.SQL)
		}
		if strings.Contains(frag.SQL, "DROP") {
			t.Fatalf("%q: user text in the SQL: %s", q, frag.SQL)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		rows, err := db.QueryContext(ctx, `SELECT id FROM r WHERE `+frag.SQL, frag.Args...)
		if err != nil {
			t.Fatalf("%q: the SQL does not run: %v\n%s", q, err, frag.SQL)
		}
		defer rows.Close()
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%q: reading the rows: %v\n%s", q, err, frag.SQL)
		}
	})
}
