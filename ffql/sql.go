package ffql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice/sluice/model"
)

// Frag is a piece of SQL with its `?` arguments in order.
type Frag struct {
	SQL  string
	Args []any
}

// Columns tells the translation how a record's data is reached in SQL; the store implements it.
// Field keys are passed as given and must be bound as arguments, never spliced into SQL.
type Columns interface {
	// Value is an expression for the stored value of a field: NULL when absent, a number,
	// text, 1/0 for booleans, or JSON text for arrays (as SQLite's json_extract gives).
	Value(key string) Frag
	// CellStatus is a condition that is true when the cell has a message of that status
	// (error, warning, info) or, for valid, no error message.
	CellStatus(key, status string) Frag
	// RecordStatus is the same test for the record as a whole (any cell, or the record).
	RecordStatus(status string) Frag
	// Typing is how Value's values are tested in the engine's SQL.
	Typing() Typing
}

// Translate turns e into one SQL condition over the fields of a sheet. Unknown fields are
// errors naming the field.
func Translate(e Expr, fields []model.Field, cols Columns) (Frag, error) {
	t := translator{fields: fields, cols: cols}
	return t.expr(e)
}

type translator struct {
	fields []model.Field
	cols   Columns
}

func (t translator) expr(e Expr) (Frag, error) {
	switch x := e.(type) {
	case *Binary:
		l, err := t.expr(x.Left)
		if err != nil {
			return Frag{}, err
		}
		r, err := t.expr(x.Right)
		if err != nil {
			return Frag{}, err
		}
		return join(" "+strings.ToUpper(x.Op)+" ", l, r), nil
	case *Is:
		if x.Field == "" {
			return t.cols.RecordStatus(x.Status), nil
		}
		f, err := t.resolve(x.Field)
		if err != nil {
			return Frag{}, err
		}
		return t.cols.CellStatus(f.Key, x.Status), nil
	case *Compare:
		return t.compare(x)
	}
	return Frag{}, &Error{Msg: "unsupported expression"}
}

func (t translator) compare(c *Compare) (Frag, error) {
	if c.Field != "" {
		f, err := t.resolve(c.Field)
		if err != nil {
			return Frag{}, err
		}
		return t.cell(f, c.Op, c.Value), nil
	}
	// Without a field the condition holds when it holds for any field; ne holds when no
	// field equals the value.
	op := c.Op
	if op == "ne" {
		op = "eq"
	}
	parts := make([]Frag, 0, len(t.fields))
	for i := range t.fields {
		parts = append(parts, t.cell(&t.fields[i], op, c.Value))
	}
	if len(parts) == 0 {
		parts = append(parts, Frag{SQL: "FALSE"})
	}
	anyField := join(" OR ", parts...)
	if c.Op == "ne" {
		return not(anyField), nil
	}
	return anyField, nil
}

// resolve finds a field by key, then by label, each exact before case-insensitive.
func (t translator) resolve(name string) (*model.Field, error) {
	for _, match := range []func(f *model.Field) bool{
		func(f *model.Field) bool { return f.Key == name },
		func(f *model.Field) bool { return f.Label != "" && f.Label == name },
		func(f *model.Field) bool { return strings.EqualFold(f.Key, name) },
		func(f *model.Field) bool { return f.Label != "" && strings.EqualFold(f.Label, name) },
	} {
		for i := range t.fields {
			if match(&t.fields[i]) {
				return &t.fields[i], nil
			}
		}
	}
	return nil, &Error{Msg: fmt.Sprintf("unknown field %q: use a field key or label of the sheet", name)}
}

// IsList reports whether a field holds arrays.
func IsList(f *model.Field) bool {
	switch f.Type {
	case model.FieldStringList, model.FieldEnumList, model.FieldReferenceList:
		return true
	}
	return f.IsArray || f.Multi
}

// cell builds the condition for one field.
func (t translator) cell(f *model.Field, op, value string) Frag {
	if IsList(f) {
		return t.listCell(f, op, value)
	}
	v, ty := t.cols.Value(f.Key), t.cols.Typing()
	switch op {
	case "eq":
		return eqFrag(ty, f, v, value)
	case "ne":
		return not(eqFrag(ty, f, v, value))
	case "lt", "gt", "lte", "gte":
		return compareFrag(ty, f, v, op, value)
	case "like":
		return ty.Like(v, value, false)
	case "ilike":
		return ty.Like(v, value, true)
	case "contains":
		return ty.Contains(v, value)
	}
	return Frag{SQL: "FALSE"}
}

// compareFrag orders a value against value: by number for number fields, else as text.
func compareFrag(ty Typing, f *model.Field, v Frag, op, value string) Frag {
	sym := map[string]string{"lt": "<", "gt": ">", "lte": "<=", "gte": ">="}[op]
	if n, ok := number(f, value); ok {
		return ty.CmpNumber(v, sym, n)
	}
	return ty.CmpText(v, sym, value)
}

// listCell builds the condition for an array field: eq, contains, like and ilike test the
// elements; ne is "no element equals"; an empty value tests for an empty cell.
func (t translator) listCell(f *model.Field, op, value string) Frag {
	v, ty := t.cols.Value(f.Key), t.cols.Typing()
	if value == "" && (op == "eq" || op == "ne") {
		empty := ty.Empty(v, true)
		if op == "ne" {
			return not(empty)
		}
		return empty
	}
	var cond Frag
	switch op {
	case "like":
		cond = ty.Like(ty.Element(), value, false)
	case "ilike":
		cond = ty.Like(ty.Element(), value, true)
	case "lt", "gt", "lte", "gte":
		cond = compareFrag(ty, f, ty.Element(), op, value)
	default:
		cond = cat(ty.ElementText(), Frag{SQL: " = ?", Args: []any{value}})
	}
	exists := cat(Frag{SQL: "EXISTS (SELECT 1 FROM "}, ty.Elements(v), Frag{SQL: " WHERE "}, cond, Frag{SQL: ")"})
	if op == "ne" {
		return not(exists)
	}
	return exists
}

// eqFrag compares a scalar field with value: "" matches empty cells; numbers and booleans
// compare by value when the text reads as one.
func eqFrag(ty Typing, f *model.Field, v Frag, value string) Frag {
	if value == "" {
		return ty.Empty(v, false)
	}
	if n, ok := number(f, value); ok {
		return ty.EqNumber(v, n)
	}
	if f.Type == model.FieldBoolean {
		switch strings.ToLower(value) {
		case "true":
			return ty.EqBool(v, true)
		case "false":
			return ty.EqBool(v, false)
		}
	}
	return ty.EqText(v, value)
}

func number(f *model.Field, s string) (float64, bool) {
	if f.Type != model.FieldNumber {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return n, err == nil
}

// LikeToGlob turns a case-sensitive LIKE pattern (% any run, _ one character) into the
// equivalent GLOB pattern, escaping GLOB's own wildcards.
func LikeToGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '%':
			b.WriteByte('*')
		case '_':
			b.WriteByte('?')
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cat concatenates fragments.
func cat(parts ...Frag) Frag {
	var out Frag
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.SQL)
		out.Args = append(out.Args, p.Args...)
	}
	out.SQL = b.String()
	return out
}

// join wraps each part in parentheses and joins them with sep.
func join(sep string, parts ...Frag) Frag {
	seq := make([]Frag, 0, 2*len(parts)+1)
	seq = append(seq, Frag{SQL: "("})
	for i, p := range parts {
		if i > 0 {
			seq = append(seq, Frag{SQL: sep})
		}
		seq = append(seq, Frag{SQL: "("}, p, Frag{SQL: ")"})
	}
	return cat(append(seq, Frag{SQL: ")"})...)
}

// not negates a condition, treating NULL as false so the negation of an unknown is true.
func not(f Frag) Frag { return cat(Frag{SQL: "NOT coalesce(("}, f, Frag{SQL: "), FALSE)"}) }

// And joins conditions with AND; empty fragments are skipped. With none it returns TRUE.
func And(parts ...Frag) Frag {
	var keep []Frag
	for _, p := range parts {
		if p.SQL != "" {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return Frag{SQL: "TRUE"}
	}
	if len(keep) == 1 {
		return keep[0]
	}
	return join(" AND ", keep...)
}
