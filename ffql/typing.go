package ffql

import "strings"

// Typing writes the typed tests on a value expression in one engine's SQL. SQLite gives a
// field's value as a dynamically typed scalar (numbers as numbers, booleans as 1/0, text,
// arrays as JSON text) and orders NULL < numbers < text; PostgreSQL gives it as jsonb, and
// its Typing reproduces SQLite's answers over that.
type Typing interface {
	// Empty is true for a missing value or "" (lists: also []).
	Empty(v Frag, list bool) Frag
	EqNumber(v Frag, n float64) Frag
	EqBool(v Frag, b bool) Frag
	EqText(v Frag, s string) Frag
	// CmpNumber compares numbers only: false for any other value.
	CmpNumber(v Frag, sym string, n float64) Frag
	// CmpText compares as SQLite does a value with text: strings in byte order, numbers and
	// booleans before any text.
	CmpText(v Frag, sym, s string) Frag
	// Like matches a LIKE pattern (% and _), ignoring ASCII case when fold is set.
	Like(v Frag, pattern string, fold bool) Frag
	// Contains is true when the value's text holds s.
	Contains(v Frag, s string) Frag
	// Text is the value as text (strings unquoted, numbers as written).
	Text(v Frag) Frag
	// JSON is the value as JSON text.
	JSON(v Frag) Frag
	// Order is the ORDER BY terms for the value in direction dir (" ASC" or " DESC").
	Order(v Frag, dir string) Frag
	// Elements is a table-valued source whose `value` column lists the items of an array
	// value (a scalar is one item, NULL none, as SQLite's json_each gives them).
	Elements(v Frag) Frag
	// ElementText is the text of an element in the `value` column of Elements.
	ElementText() Frag
	// Element is the `value` column of Elements as a value for the tests above.
	Element() Frag
}

// SQLite is the Typing of SQLite's json_extract values.
var SQLite Typing = sqliteTyping{}

// Postgres is the Typing of jsonb values (SQL NULL for a missing or null value).
var Postgres Typing = postgresTyping{}

type sqliteTyping struct{}

func (sqliteTyping) Empty(v Frag, list bool) Frag {
	if list {
		return cat(Frag{SQL: "("}, v, Frag{SQL: " IS NULL OR "}, v, Frag{SQL: " IN ('', '[]'))"})
	}
	return cat(Frag{SQL: "("}, v, Frag{SQL: " IS NULL OR "}, v, Frag{SQL: " = '')"})
}

func (sqliteTyping) EqNumber(v Frag, n float64) Frag {
	return cat(v, Frag{SQL: " = ?", Args: []any{n}})
}

func (sqliteTyping) EqBool(v Frag, b bool) Frag {
	if b {
		return cat(v, Frag{SQL: " = 1"})
	}
	return cat(v, Frag{SQL: " = 0"})
}

func (sqliteTyping) EqText(v Frag, s string) Frag {
	return cat(v, Frag{SQL: " = ?", Args: []any{s}})
}

func (sqliteTyping) CmpNumber(v Frag, sym string, n float64) Frag {
	return join(" AND ", cat(v, Frag{SQL: " " + sym + " ?", Args: []any{n}}), cat(Frag{SQL: "typeof("}, v, Frag{SQL: ") IN ('integer','real')"}))
}

func (sqliteTyping) CmpText(v Frag, sym, s string) Frag {
	return cat(v, Frag{SQL: " " + sym + " ?", Args: []any{s}})
}

func (sqliteTyping) Like(v Frag, pattern string, fold bool) Frag {
	if fold {
		return cat(v, Frag{SQL: " LIKE ?", Args: []any{pattern}})
	}
	return cat(v, Frag{SQL: " GLOB ?", Args: []any{LikeToGlob(pattern)}})
}

func (sqliteTyping) Contains(v Frag, s string) Frag {
	return cat(Frag{SQL: "instr("}, v, Frag{SQL: ", ?) > 0", Args: []any{s}})
}

func (sqliteTyping) Text(v Frag) Frag     { return cat(Frag{SQL: "CAST("}, v, Frag{SQL: " AS TEXT)"}) }
func (sqliteTyping) JSON(v Frag) Frag     { return cat(Frag{SQL: "json_quote("}, v, Frag{SQL: ")"}) }
func (sqliteTyping) Elements(v Frag) Frag { return cat(Frag{SQL: "json_each("}, v, Frag{SQL: ")"}) }
func (sqliteTyping) ElementText() Frag    { return Frag{SQL: "CAST(value AS TEXT)"} }
func (sqliteTyping) Element() Frag        { return Frag{SQL: "value"} }

func (sqliteTyping) Order(v Frag, dir string) Frag { return cat(v, Frag{SQL: dir}) }

type postgresTyping struct{}

// kind is jsonb_typeof(v).
func kind(v Frag) Frag { return cat(Frag{SQL: "jsonb_typeof("}, v, Frag{SQL: ")"}) }

// num is v as a number when it is one (booleans as 1/0, as SQLite stores them), else NULL.
func num(v Frag) Frag {
	return cat(Frag{SQL: "(CASE "}, kind(v), Frag{SQL: " WHEN 'number' THEN ("}, v, Frag{SQL: ")::numeric WHEN 'boolean' THEN CASE WHEN "}, v,
		Frag{SQL: " = 'true'::jsonb THEN 1 ELSE 0 END END)"})
}

func (postgresTyping) Empty(v Frag, list bool) Frag {
	if list {
		return cat(Frag{SQL: "("}, v, Frag{SQL: " IS NULL OR "}, v, Frag{SQL: ` IN ('""'::jsonb, '[]'::jsonb))`})
	}
	return cat(Frag{SQL: "("}, v, Frag{SQL: " IS NULL OR "}, v, Frag{SQL: ` = '""'::jsonb)`})
}

func (postgresTyping) EqNumber(v Frag, n float64) Frag {
	return cat(v, Frag{SQL: " = to_jsonb(CAST(? AS NUMERIC))", Args: []any{n}})
}

func (postgresTyping) EqBool(v Frag, b bool) Frag {
	if b {
		return cat(v, Frag{SQL: " = 'true'::jsonb"})
	}
	return cat(v, Frag{SQL: " = 'false'::jsonb"})
}

func (postgresTyping) EqText(v Frag, s string) Frag {
	return cat(v, Frag{SQL: " = to_jsonb(CAST(? AS TEXT))", Args: []any{s}})
}

func (postgresTyping) CmpNumber(v Frag, sym string, n float64) Frag {
	return cat(num(v), Frag{SQL: " " + sym + " ?", Args: []any{n}})
}

func (p postgresTyping) CmpText(v Frag, sym, s string) Frag {
	before := "FALSE" // numbers and booleans sort before any text
	if sym == "<" || sym == "<=" {
		before = "TRUE"
	}
	return cat(Frag{SQL: "(CASE WHEN "}, kind(v), Frag{SQL: " IN ('number', 'boolean') THEN " + before + " ELSE "},
		p.Text(v), Frag{SQL: ` COLLATE "C" ` + sym + " ?", Args: []any{s}}, Frag{SQL: " END)"})
}

func (p postgresTyping) Like(v Frag, pattern string, fold bool) Frag {
	op := " ~~ ?" // LIKE, which the store's rewriter leaves alone
	if fold {
		op = " ~~* ?"
	}
	// SQLite's patterns have no escape character; PostgreSQL's is the backslash. In the "C"
	// collation ILIKE folds ASCII case only, as SQLite's LIKE does.
	return cat(p.Text(v), Frag{SQL: ` COLLATE "C"` + op, Args: []any{strings.ReplaceAll(pattern, `\`, `\\`)}})
}

func (p postgresTyping) Contains(v Frag, s string) Frag {
	return cat(Frag{SQL: "strpos("}, p.Text(v), Frag{SQL: ", ?) > 0", Args: []any{s}})
}

func (postgresTyping) Text(v Frag) Frag  { return cat(Frag{SQL: "("}, v, Frag{SQL: " #>> '{}')"}) }
func (postgresTyping) JSON(v Frag) Frag  { return cat(Frag{SQL: "CAST("}, v, Frag{SQL: " AS TEXT)"}) }
func (postgresTyping) ElementText() Frag { return Frag{SQL: "(value #>> '{}')"} }

func (postgresTyping) Elements(v Frag) Frag {
	return cat(Frag{SQL: "jsonb_array_elements(CASE WHEN "}, kind(v), Frag{SQL: " = 'array' THEN "}, v,
		Frag{SQL: " WHEN "}, v, Frag{SQL: " IS NOT NULL THEN jsonb_build_array("}, v, Frag{SQL: ") END) AS e(value)"})
}
func (postgresTyping) Element() Frag { return Frag{SQL: "value"} }

// Order sorts as SQLite does: NULL, then numbers (booleans as 1/0), then text in byte order.
func (p postgresTyping) Order(v Frag, dir string) Frag {
	rank := cat(Frag{SQL: "(CASE WHEN "}, v, Frag{SQL: " IS NULL THEN 0 WHEN "}, kind(v), Frag{SQL: " IN ('number', 'boolean') THEN 1 ELSE 2 END)"})
	return cat(rank, Frag{SQL: dir + ", "}, num(v), Frag{SQL: dir + ", "}, p.Text(v), Frag{SQL: ` COLLATE "C"` + dir})
}
