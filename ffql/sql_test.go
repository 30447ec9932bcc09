package ffql_test

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
)

// cols is a minimal Columns over a table r(id, vals, msgs) where msgs maps field key to an
// array of {"type": …} messages.
type cols struct{}

func (cols) Value(key string) ffql.Frag {
	return ffql.Frag{SQL: "(SELECT value FROM json_each(r.vals) WHERE key = ?)", Args: []any{key}}
}
func (cols) Typing() ffql.Typing { return ffql.SQLite }
func (cols) CellStatus(key, status string) ffql.Frag {
	if status == "valid" {
		return ffql.Frag{SQL: "instr(coalesce((SELECT value FROM json_each(r.msgs) WHERE key = ?), ''), '\"error\"') = 0", Args: []any{key}}
	}
	return ffql.Frag{SQL: "instr(coalesce((SELECT value FROM json_each(r.msgs) WHERE key = ?), ''), ?) > 0", Args: []any{key, `"` + statusType(status) + `"`}}
}
func (cols) RecordStatus(status string) ffql.Frag {
	if status == "valid" {
		return ffql.Frag{SQL: "instr(coalesce(r.msgs, ''), '\"error\"') = 0"}
	}
	return ffql.Frag{SQL: "instr(coalesce(r.msgs, ''), ?) > 0", Args: []any{`"` + statusType(status) + `"`}}
}

func statusType(s string) string {
	if s == "warning" {
		return "warn"
	}
	return s
}

var testFields = []model.Field{
	{Key: "name", Type: model.FieldString, Label: "Full Name"},
	{Key: "age", Type: model.FieldNumber},
	{Key: "active", Type: model.FieldBoolean},
	{Key: "tags", Type: model.FieldStringList},
	{Key: "a.b", Type: model.FieldString},
}

func mustOpenTable(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rows := []struct{ id, vals, msgs string }{
		{"1", `{"name":"Bender Rodriguez","age":5,"active":true,"tags":["robot","bender"],"a.b":"x"}`, `{"age":[{"type":"error"}]}`},
		{"2", `{"name":"Fry","age":25,"active":false,"tags":[]}`, `{"name":[{"type":"warn"}]}`},
		{"3", `{"name":"leela","age":"abc","tags":["captain"]}`, `{}`},
		{"4", `{"name":"","age":40}`, `{}`},
	}
	if _, err := db.Exec(`CREATE TABLE r (id TEXT, vals TEXT, msgs TEXT)`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO r VALUES (?, ?, ?)`, r.id, r.vals, r.msgs); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestTranslate(t *testing.T) {
	db := mustOpenTable(t)
	tests := []struct {
		q    string
		want []string
	}{
		{`name eq Fry`, []string{"2"}},
		{`"Full Name" eq Fry`, []string{"2"}},
		{`full name eq Fry`, nil}, // unquoted label with a space is two words: parse error below
		{`name ne Fry`, []string{"1", "3", "4"}},
		{`name eq ""`, []string{"4"}},
		{`age eq 5`, []string{"1"}},
		{`age eq 5.0`, []string{"1"}},
		{`age gt 10`, []string{"2", "4"}},
		{`age lte 25`, []string{"1", "2"}},
		{`age eq abc`, []string{"3"}},
		{`active eq true`, []string{"1"}},
		{`active eq false`, []string{"2"}},
		{`name like "B%"`, []string{"1"}},
		{`name like "b%"`, nil},
		{`name ilike "b%"`, []string{"1"}},
		{`name like "F_y"`, []string{"2"}},
		{`tags contains robot`, []string{"1"}},
		{`tags eq captain`, []string{"3"}},
		{`tags eq ""`, []string{"2", "4"}},
		{`a.b eq x`, []string{"1"}},
		{`eq Fry`, []string{"2"}},
		{`eq 25`, []string{"2"}},
		{`age is error`, []string{"1"}},
		{`is error`, []string{"1"}},
		{`is warning`, []string{"2"}},
		{`is valid`, []string{"2", "3", "4"}},
		{`name eq Fry or age eq 5 and active eq false`, []string{"2"}},
		{`(name eq Fry or age eq 5) and active eq true`, []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			e, err := ffql.Parse(tt.q, limits.Default().FFQLTerms)
			if err != nil {
				if tt.want == nil {
					return
				}
				t.Fatal(err)
			}
			f, err := ffql.Translate(e, testFields, cols{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.Query(`SELECT id FROM r WHERE `+f.SQL+` ORDER BY id`, f.Args...)
			if err != nil {
				t.Fatalf("%s: %v", f.SQL, err)
			}
			defer rows.Close()
			var got []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v (sql %s)", got, tt.want, f.SQL)
			}
		})
	}
}

func TestTranslateUnknownField(t *testing.T) {
	e, _ := ffql.Parse(`nope eq 1`, limits.Default().FFQLTerms)
	_, err := ffql.Translate(e, testFields, cols{})
	if err == nil || !strings.Contains(err.Error(), `unknown field "nope"`) {
		t.Fatalf("got %v, want an unknown field error", err)
	}
}
