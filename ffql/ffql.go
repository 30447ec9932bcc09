// Package ffql parses Flatfile Query Language, the `q` parameter of the records API, and
// translates it to SQL conditions over a sheet's records.
//
// Grammar (keywords and operators are case-insensitive; `and` binds tighter than `or`):
//
//	expr      = and { "or" and }
//	and       = primary { "and" primary }
//	primary   = "(" expr ")" | condition
//	condition = [field] op value | [field] "is" status
//	op        = eq | ne | lt | gt | lte | gte | like | ilike | contains
//	status    = error | valid | warning | info
//
// A field is a field key or label; a field or value holding spaces or parentheses is quoted
// with "…" or '…', where \" \' and \\ are escapes and a backslash before any other character
// stays literal. Without a field a condition is tested against every field (or, for `is`,
// the whole record).
package ffql

import (
	"fmt"
	"strings"
)

// Expr is a parsed query: *Binary, *Compare or *Is.
type Expr interface{ node() }

// Binary joins two expressions with "and" or "or".
type Binary struct {
	Op          string // "and" | "or"
	Left, Right Expr
}

// Compare tests a field (or every field when Field is empty) against a value.
type Compare struct {
	Field string // key or label as written; "" means any field
	Op    string // eq ne lt gt lte gte like ilike contains
	Value string
}

// Is tests the validation state of a cell (Field set) or of the whole record.
type Is struct {
	Field  string
	Status string // error | valid | warning | info
}

func (*Binary) node()  {}
func (*Compare) node() {}
func (*Is) node()      {}

// Operators lists the comparison operators in the order messages name them.
var Operators = []string{"eq", "ne", "lt", "gt", "lte", "gte", "like", "ilike", "contains"}

// Statuses lists the states `is` accepts.
var Statuses = []string{"error", "valid", "warning", "info"}

func isOperator(s string) bool { return contains(Operators, strings.ToLower(s)) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Error is a syntax error with the 1-based character position it was found at.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string {
	if e.Pos > 0 {
		return fmt.Sprintf("%s (at character %d)", e.Msg, e.Pos)
	}
	return e.Msg
}

type tokKind int

const (
	tEOF tokKind = iota
	tWord
	tQuoted
	tOpen
	tClose
)

type token struct {
	kind tokKind
	text string
	pos  int // 1-based rune position
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tOpen:
		return `"("`
	case tClose:
		return `")"`
	case tQuoted:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lex splits q into tokens.
func lex(q string) ([]token, error) {
	rs := []rune(q)
	var toks []token
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			i++
		case r == '(':
			toks = append(toks, token{tOpen, "(", i + 1})
			i++
		case r == ')':
			toks = append(toks, token{tClose, ")", i + 1})
			i++
		case r == '"' || r == '\'':
			text, next, err := lexQuoted(rs, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tQuoted, text, i + 1})
			i = next
		default:
			start := i
			for i < len(rs) && !strings.ContainsRune(" \t\n\r()\"'", rs[i]) {
				i++
			}
			toks = append(toks, token{tWord, string(rs[start:i]), start + 1})
		}
	}
	return append(toks, token{tEOF, "", len(rs) + 1}), nil
}

// lexQuoted reads the quoted string starting at rs[i] and returns its text and the index
// after the closing quote.
func lexQuoted(rs []rune, i int) (string, int, error) {
	quote := rs[i]
	var b strings.Builder
	for j := i + 1; j < len(rs); j++ {
		switch c := rs[j]; {
		case c == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\'' || rs[j+1] == '\\'):
			b.WriteRune(rs[j+1])
			j++
		case c == quote:
			return b.String(), j + 1, nil
		default:
			b.WriteRune(c)
		}
	}
	return "", 0, &Error{Pos: i + 1, Msg: fmt.Sprintf("unterminated quoted string starting with %c", quote)}
}

type parser struct {
	toks  []token
	i     int
	q     string
	terms int // conditions read so far
	max   int // conditions allowed (SLUICE_MAX_FFQL_TERMS)
}

// Parse parses q, of at most maxTerms conditions. An empty or blank query is an error;
// callers treat an absent q as no filter.
func Parse(q string, maxTerms int) (Expr, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, q: q, max: maxTerms}
	if p.peek().kind == tEOF {
		return nil, &Error{Msg: "query is empty"}
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tClose {
			return nil, &Error{Pos: t.pos, Msg: `unbalanced ")": no "(" to close`}
		}
		return nil, &Error{Pos: t.pos, Msg: fmt.Sprintf("expected and, or or end of query, got %s", t)}
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

// keyword reports whether the next token is the bare word kw.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	return t.kind == tWord && strings.EqualFold(t.text, kw)
}

func (p *parser) expr() (Expr, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		p.next()
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = &Binary{Op: "or", Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) and() (Expr, error) {
	left, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		p.next()
		right, err := p.primary()
		if err != nil {
			return nil, err
		}
		left = &Binary{Op: "and", Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tOpen:
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c.kind != tClose {
			return nil, &Error{Pos: c.pos, Msg: fmt.Sprintf(`expected ")" to close the "(" at character %d, got %s`, t.pos, c)}
		}
		p.next()
		return e, nil
	case tEOF:
		return nil, &Error{Pos: t.pos, Msg: "expected a condition, got end of query"}
	case tClose:
		return nil, &Error{Pos: t.pos, Msg: `expected a condition, got ")"`}
	}
	return p.condition()
}

func (p *parser) condition() (Expr, error) {
	field := ""
	t := p.peek()
	// Each condition costs a comparison per record: a filter of hundreds would hold a core
	// for minutes on a large sheet.
	if p.terms++; p.terms > p.max {
		return nil, &Error{Pos: t.pos, Msg: fmt.Sprintf("the filter has more than %d conditions; the limit is %d (SLUICE_MAX_FFQL_TERMS)", p.max, p.max)}
	}
	// A bare operator word starts a condition without a field; anything else is the field.
	if t.kind == tQuoted || !(isOperator(t.text) || strings.EqualFold(t.text, "is")) {
		if t.kind == tWord && (strings.EqualFold(t.text, "and") || strings.EqualFold(t.text, "or")) {
			return nil, &Error{Pos: t.pos, Msg: fmt.Sprintf("expected a condition, got %s", t)}
		}
		field = p.next().text
	}
	op := p.next()
	if op.kind != tWord || !(isOperator(op.text) || strings.EqualFold(op.text, "is")) {
		what := "after the field " + fmt.Sprintf("%q", field)
		if field == "" {
			what = "to start a condition"
		}
		return nil, &Error{Pos: op.pos, Msg: fmt.Sprintf("expected an operator (%s or is) %s, got %s", strings.Join(Operators, ", "), what, op)}
	}
	val := p.next()
	if val.kind != tWord && val.kind != tQuoted {
		return nil, &Error{Pos: val.pos, Msg: fmt.Sprintf("expected a value after %q, got %s", op.text, val)}
	}
	if strings.EqualFold(op.text, "is") {
		st := strings.ToLower(val.text)
		if st == "warn" {
			st = "warning"
		}
		if !contains(Statuses, st) {
			return nil, &Error{Pos: val.pos, Msg: fmt.Sprintf("unknown status %q after is: use %s", val.text, strings.Join(Statuses, ", "))}
		}
		return &Is{Field: field, Status: st}, nil
	}
	return &Compare{Field: field, Op: strings.ToLower(op.text), Value: val.text}, nil
}

// String renders e back as a query (quoting every field and value), for logs and tests.
func String(e Expr) string {
	switch x := e.(type) {
	case *Binary:
		return "(" + String(x.Left) + " " + x.Op + " " + String(x.Right) + ")"
	case *Compare:
		if x.Field == "" {
			return x.Op + " " + quote(x.Value)
		}
		return quote(x.Field) + " " + x.Op + " " + quote(x.Value)
	case *Is:
		if x.Field == "" {
			return "is " + x.Status
		}
		return quote(x.Field) + " is " + x.Status
	}
	return ""
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
