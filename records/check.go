package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/model"
)

// Cells holds messages per rule index; nil entries have none.
type Cells [][]Message

// Check coerces each value of row to its field's stored form in place (numbers from text,
// booleans from yes/no, single values into lists, enum labels into their values) and returns
// the messages of the type, required and enum checks. Unique constraints and references
// need data and are the store's job.
func (s *Schema) Check(row Row) Cells {
	out, _ := s.CheckKeep(row)
	return out
}

// CheckKeep is Check that also returns, per rule index, the text a value had when reading
// it changed more than its notation (23/08/1984 → 1984-08-23, "1.234,56" → 1234.56): the
// value as written, which the store keeps in the record's metadata.source. nil when none.
func (s *Schema) CheckKeep(row Row) (Cells, []string) {
	var out Cells
	var written []string
	add := func(i int, m Message) {
		if out == nil {
			out = make(Cells, len(s.Rules))
		}
		out[i] = append(out[i], m)
	}
	for i, r := range s.Rules {
		v := row[i]
		if v != nil {
			var msg string
			before := v
			v, msg = r.coerce(v)
			row[i] = v
			if msg == "" && v != nil && r.reads() && !bytes.Equal(before, v) {
				if t := strings.TrimSpace(textOf(before)); t != textOf(v) && !sameNumber(t, v) {
					if written == nil {
						written = make([]string, len(s.Rules))
					}
					written[i] = unquote(before)
				}
			}
			if msg != "" {
				src := ""
				if r.Type == model.FieldEnum || r.Type == model.FieldEnumList {
					src = SourceOption
				}
				add(i, Message{Type: LevelError, Source: src, Message: msg})
			}
		}
		if r.Required != nil && IsEmpty(v) {
			add(i, Message{Type: r.Required.Level, Source: SourceRequired, Message: r.Required.Message})
		}
	}
	return out, written
}

// reads reports the types whose text values are read into another form (dates, numbers,
// booleans), the ones whose written text is worth keeping.
func (r *Rule) reads() bool {
	return !r.List && (r.Type == model.FieldDate || r.Type == model.FieldNumber || r.Type == model.FieldBoolean)
}

// sameNumber reports text that is only another notation of the number v ("12.50" for 12.5,
// "true" for true): not worth keeping.
func sameNumber(t string, v json.RawMessage) bool {
	a, err1 := strconv.ParseFloat(t, 64)
	b, err2 := strconv.ParseFloat(string(v), 64)
	return err1 == nil && err2 == nil && a == b
}

// coerce returns the stored form of v and a message when it does not fit the field.
func (r *Rule) coerce(v json.RawMessage) (json.RawMessage, string) {
	v = Canonical(v)
	switch {
	case string(v) == "null":
		return nil, ""
	case string(v) == `""`:
		return v, ""
	}
	if r.List {
		return r.coerceList(v)
	}
	if v[0] == '[' || v[0] == '{' {
		return v, "Value must be a single value, not a list or object"
	}
	return r.coerceScalar(v)
}

func (r *Rule) coerceList(v json.RawMessage) (json.RawMessage, string) {
	var items []json.RawMessage
	if v[0] == '[' {
		if err := json.Unmarshal(v, &items); err != nil {
			return v, "Value must be a list"
		}
	} else if v[0] == '{' {
		return v, "Value must be a list"
	} else {
		items = []json.RawMessage{v}
	}
	if len(items) == 0 {
		return json.RawMessage("[]"), ""
	}
	msg := ""
	var b bytes.Buffer
	b.WriteByte('[')
	for j, it := range items {
		it = Canonical(it)
		if it[0] == '[' || it[0] == '{' || string(it) == "null" {
			msg = "List items must be single values"
		} else if c, m := r.coerceScalar(it); m != "" {
			if msg == "" {
				msg = m
			}
			it = c
		} else {
			it = c
		}
		if j > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes(), msg
}

func (r *Rule) coerceScalar(v json.RawMessage) (json.RawMessage, string) {
	switch r.Type {
	case model.FieldNumber:
		return r.coerceNumber(v)
	case model.FieldBoolean:
		return coerceBool(v)
	case model.FieldDate:
		return r.coerceDate(v)
	case model.FieldEnum, model.FieldEnumList:
		return r.coerceEnum(v)
	case model.FieldReference, model.FieldReferenceList:
		return toText(v), ""
	}
	// string, string-list and types Sluice does not check hold text.
	return toText(v), ""
}

func (r *Rule) coerceNumber(v json.RawMessage) (json.RawMessage, string) {
	switch v[0] {
	case '"':
		inner := v[1 : len(v)-1]
		s := strings.TrimSpace(string(inner))
		if r.Format == formats.Comma || !isPlainNumber(s) {
			// 1.234,56 €, (45.00), 1,5: read the way people write them
			if n, ok := formats.ParseNumber(s, r.Format); ok {
				return json.RawMessage(n), ""
			}
			if r.Format == "" && formats.AmbiguousNumber(s) {
				return v, "Value " + s + " could be read with a decimal point or a decimal comma: set the field's config.format.decimalSeparator"
			}
			if r.Format != "" {
				return v, formats.Expected("number", r.Format)
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") && !isInfNaN(s) {
			if isJSONNumber(s) {
				if len(s) == len(inner) {
					return json.RawMessage(inner), ""
				}
				return json.RawMessage(s), ""
			}
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), ""
		}
		if f, err := strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return v, outOfRange
		}
		return v, "Value must be a number"
	case 't', 'f':
		return v, "Value must be a number"
	}
	// A JSON number beyond float64 (1e999999) would be read as infinity everywhere after.
	if f, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
		return v, outOfRange
	}
	return v, ""
}

const outOfRange = "Value is too large a number: numbers go up to about ±1.8e308"

func isInfNaN(s string) bool {
	l := strings.ToLower(strings.TrimLeft(s, "+-"))
	return l == "inf" || l == "infinity" || l == "nan"
}

// isJSONNumber reports whether s is already in JSON number syntax (no leading +, zeros or dot).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if n := digits(); n == 0 || (n > 1 && s[i-n] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func coerceBool(v json.RawMessage) (json.RawMessage, string) {
	switch v[0] {
	case 't', 'f':
		return v, ""
	case '"':
		// yes/no, true/false, 1/0, on/off and their words in the UI's languages
		if b, ok := formats.ParseBool(unquote(v)); ok {
			return json.RawMessage(strconv.FormatBool(b)), ""
		}
	default:
		switch string(v) {
		case "1":
			return json.RawMessage("true"), ""
		case "0":
			return json.RawMessage("false"), ""
		}
	}
	return v, "Value must be true or false"
}

func (r *Rule) coerceEnum(v json.RawMessage) (json.RawMessage, string) {
	if o, ok := r.byText[textOf(v)]; ok {
		return o, ""
	}
	if v[0] == '"' {
		if o, ok := r.byLabel[strings.ToLower(unquote(v))]; ok {
			return o, ""
		}
	}
	if r.Config != nil && r.Config.AllowCustom {
		return v, ""
	}
	return v, "Value is not one of the allowed options"
}

// toText turns a number or boolean into a JSON string; strings pass.
func toText(v json.RawMessage) json.RawMessage {
	if v[0] == '"' {
		return v
	}
	b, _ := json.Marshal(string(v))
	return b
}

// textOf is the plain text of a scalar: a string's content, or a number's or boolean's JSON.
func textOf(v json.RawMessage) string {
	if len(v) > 0 && v[0] == '"' {
		return unquote(v)
	}
	return string(v)
}

func unquote(v json.RawMessage) string {
	if bytes.IndexByte(v, '\\') < 0 && len(v) >= 2 {
		return string(v[1 : len(v)-1])
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// Canonical returns v in the one form Sluice stores: compact, strings without needless
// escapes, HTML characters unescaped (a string as Quote writes its text). Invalid JSON is
// returned as a JSON string of its text.
func Canonical(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	switch v[0] {
	case '"':
		if canonicalString(v) {
			return v
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return Quote(string(v))
		}
		return Quote(s)
	case '[', '{':
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return Quote(string(v))
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		return bytes.TrimRight(b.Bytes(), "\n")
	}
	if !json.Valid(v) {
		return Quote(string(v))
	}
	return v
}

// canonicalString reports whether v is a JSON string as Quote writes one: every character
// in the one form AppendQuote gives it, so that decoding and quoting it again gives v (a
// file's cells, quoted by QuoteRow, are checked without being decoded: issue 17).
func canonicalString(v []byte) bool {
	n := len(v)
	if n < 2 || v[0] != '"' || v[n-1] != '"' {
		return false
	}
	for i := 1; i < n-1; {
		c := v[i]
		switch {
		case c == '\\':
			if i+1 >= n-1 {
				return false
			}
			switch v[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				// only the control characters without a short escape, U+2028 and U+2029
				if i+6 > n-1 || !canonicalU(string(v[i+2:i+6])) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < 0x20 || c == '"':
			return false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(v[i : n-1])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += size
		}
	}
	return true
}

// canonicalU reports whether \u followed by the four hex digits h is how AppendQuote writes
// the character.
func canonicalU(h string) bool {
	if h == "2028" || h == "2029" {
		return true
	}
	if h[0] != '0' || h[1] != '0' || h[2] > '1' || h[2] < '0' {
		return false
	}
	d := strings.IndexByte(quoteHex, h[3])
	if d < 0 {
		return false
	}
	switch c := (h[2]-'0')<<4 | byte(d); c {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}

// Quote encodes s as a JSON string without HTML escaping.
func Quote(s string) json.RawMessage {
	return AppendQuote(make([]byte, 0, len(s)+2), s)
}

const quoteHex = "0123456789abcdef"

// AppendQuote appends s to dst as a JSON string, as encoding/json's Encoder writes it with
// HTML escaping off (TestAppendQuoteAsEncodingJSON): quote and backslash escaped, control
// characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped, everything else as it is. (Written out: the Encoder took a fifth of an import's
// reading of a file with quotes or accents in its cells.)
func AppendQuote(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', quoteHex[c>>4], quoteHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', quoteHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// QuoteRow encodes a row of text cells as Quote does, empty cells as null, into one buffer
// sized for the row (a zero Quoter's first chunks, 128 kB, had been allocated a call: 12 GB
// for the records benchmark's 100,000 rows); many rows share a Quoter's.
func QuoteRow(cells []string) []json.RawMessage {
	n := 0
	for _, c := range cells {
		n += len(c) + 2
	}
	q := Quoter{buf: make([]byte, 0, n), vals: make([]json.RawMessage, 0, len(cells))}
	return q.Row(cells)
}

// Quoter is QuoteRow for many rows: they share buffers of quoterChunk bytes and values, two
// allocations for many rows instead of two a row. A row's values stay valid, and
// unchanged by later rows, for as long as they are kept.
type Quoter struct {
	buf  []byte
	vals []json.RawMessage
}

const quoterChunk = 64 << 10

// Row is QuoteRow's encoding of cells.
func (q *Quoter) Row(cells []string) []json.RawMessage {
	n := 0
	for _, c := range cells {
		n += len(c) + 2
	}
	if cap(q.buf)-len(q.buf) < n {
		q.buf = make([]byte, 0, max(n, quoterChunk))
	}
	if cap(q.vals)-len(q.vals) < len(cells) {
		q.vals = make([]json.RawMessage, 0, max(len(cells), quoterChunk/24))
	}
	start := len(q.vals)
	for _, c := range cells {
		if c == "" {
			q.vals = append(q.vals, json.RawMessage("null"))
			continue
		}
		from := len(q.buf)
		// (an escape may outgrow the buffer: append moves on to a new one, and the values
		// before keep the old)
		q.buf = AppendQuote(q.buf, c)
		q.vals = append(q.vals, q.buf[from:len(q.buf):len(q.buf)])
	}
	return q.vals[start:len(q.vals):len(q.vals)]
}

// UniqueKey returns the value u compares for row, and false when the record does not take
// part (an empty single field; a composite whose fields are all empty or whose required
// fields are empty). Text compares by exact content or case-folded, numbers by value;
// composite keys are JSON arrays of their parts.
func (u *Unique) UniqueKey(row Row) (string, bool) {
	if !u.Composite {
		return u.Key(row[u.Fields[0]])
	}
	for _, i := range u.Required {
		if IsEmpty(row[i]) {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	empty := true
	for j, i := range u.Fields {
		if j > 0 {
			b.WriteByte(',')
		}
		k, ok := u.Key(row[i])
		if !ok {
			b.WriteString("null")
			continue
		}
		empty = false
		b.Write(Quote(k))
	}
	if empty {
		return "", false
	}
	b.WriteByte(']')
	return b.String(), true
}

// Key is the value a unique constraint compares for one cell, false when it is empty.
func (u *Unique) Key(v json.RawMessage) (string, bool) {
	if IsEmpty(v) {
		return "", false
	}
	switch {
	case v[0] == '"':
		if !u.CaseSensitive {
			return strings.ToLower(unquote(v)), true
		}
		return unquote(v), true
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		// Fractions and exponents compare by value (1.50 = 1.5); integers keep every digit.
		if bytes.ContainsAny(v, ".eE") {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				return strconv.FormatFloat(f, 'g', -1, 64), true
			}
		}
	case v[0] == '[' && !u.CaseSensitive:
		return strings.ToLower(string(v)), true
	}
	return string(v), true
}

// Coerce returns the stored form of one value for the rule's field and a message when it
// does not fit (see Check).
func (r *Rule) Coerce(v json.RawMessage) (json.RawMessage, string) { return r.coerce(v) }

// Elements returns the plain texts of a stored cell: its items for a list, else the value.
func Elements(v json.RawMessage) []string {
	if IsEmpty(v) {
		return nil
	}
	if v[0] != '[' {
		return []string{textOf(v)}
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if !IsEmpty(it) {
			out = append(out, textOf(it))
		}
	}
	return out
}

// ASCIILower lowers only A–Z, as SQLite's lower() and LIKE do, so text compared in Go
// and in SQL folds the same way.
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// coerceDate stores dates as ISO 8601: values already so stay as they are; others are read
// in the field's order, or, without one, only when their reading needs no choice.
func (r *Rule) coerceDate(v json.RawMessage) (json.RawMessage, string) {
	if v[0] == '"' {
		s := strings.TrimSpace(unquote(v))
		if isISODate(s) {
			return v, ""
		}
		if iso, ok := formats.Normalize(s, "date", r.Format); ok {
			return Quote(iso), ""
		}
		if r.Format == "" && formats.Ambiguous(s) {
			return v, "Value " + s + " could be day/month or month/day: write it as YYYY-MM-DD or set the field's config.format.dateFormat"
		}
		if r.Format != "" {
			return v, formats.Expected("date", r.Format)
		}
	}
	return v, "Value must be a date (for example 2024-01-31)"
}

// isISODate reports the stored forms: 2024-01-31 and RFC 3339 date-times.
func isISODate(s string) bool {
	for _, l := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

// isPlainNumber is the fast path: text that is already a JSON-style number.
func isPlainNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	return strings.Count(s, ".") <= 1
}
