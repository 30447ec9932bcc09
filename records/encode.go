package records

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sluice/sluice/errs"
)

// Row holds a record's values aligned with Schema.Rules; nil means the cell is empty.
type Row []json.RawMessage

// Encode writes row as the stored JSON object, keys in sorted order, absent cells left out.
func (s *Schema) Encode(row Row) []byte {
	var b bytes.Buffer
	b.Grow(16 * len(row))
	b.WriteByte('{')
	first := true
	for _, i := range s.order {
		v := row[i]
		if v == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(s.Rules[i].encKey)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Decode reads stored values; the row's values are slices of vals. Keys no longer in the
// schema are returned in extra.
func (s *Schema) Decode(vals []byte) (Row, map[string]json.RawMessage, error) {
	row := make(Row, len(s.Rules))
	var extra map[string]json.RawMessage
	ok := scanObject(vals, func(key []byte, val []byte) {
		if i, ok := s.byKey[string(key)]; ok {
			row[i] = val
			return
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[string(key)] = val
	})
	if ok {
		return row, extra, nil
	}
	// Not the compact form Sluice writes: take the general decoder.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(vals, &m); err != nil {
		return nil, nil, errs.Wrap(err, "decode record values")
	}
	row, extra = make(Row, len(s.Rules)), nil
	for k, v := range m {
		if i, ok := s.byKey[k]; ok {
			row[i] = v
			continue
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	return row, extra, nil
}

// scanObject walks a compact JSON object without building it, calling fn with each key
// (unescaped) and raw value. It reports false on anything but the compact form Encode writes.
func scanObject(b []byte, fn func(key, val []byte)) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	i := 1
	if b[i] == '}' {
		return i == len(b)-1
	}
	for {
		if b[i] != '"' {
			return false
		}
		end := skipString(b, i)
		if end < 0 || end >= len(b) || b[end] != ':' {
			return false
		}
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(b[i:end], &k) != nil {
				return false
			}
			key = []byte(k)
		}
		vs := end + 1
		ve := skipValue(b, vs)
		if ve < 0 || ve >= len(b) {
			return false
		}
		fn(key, b[vs:ve:ve])
		switch b[ve] {
		case ',':
			i = ve + 1
		case '}':
			return ve == len(b)-1
		default:
			return false
		}
	}
}

// skipString returns the index after the string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the compact JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				if j < 0 {
					return -1
				}
				j--
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// EncodeString is Encode as a string, built with one allocation.
func (s *Schema) EncodeString(row Row) string {
	n := 2
	for i, v := range row {
		if v != nil {
			n += len(s.Rules[i].encKey) + len(v) + 1
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	first := true
	for _, i := range s.order {
		v := row[i]
		if v == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(s.Rules[i].encKey)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}
