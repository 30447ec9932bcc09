package sqldb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/sluice/sluice/errs"
)

// EachRow runs a query and calls fn for every row, closing the rows on all paths.
func EachRow(ctx context.Context, q Querier, what, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return errs.Wrap(err, "%s", what)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return errs.Wrap(err, "%s", what)
	}
	return nil
}

// Tuples returns n groups "(?, …)" of width parameters each, for a multi-row VALUES.
func Tuples(n, width int) string {
	if n <= 0 {
		return ""
	}
	t := "(" + Placeholders(width) + ")"
	return strings.Repeat(t+", ", n-1) + t
}

// Placeholders returns "?, ?, …" with n marks.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
