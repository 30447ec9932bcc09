package extract

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sluice/sluice/limits"
)

// openJSON reads an array of objects (or JSON Lines, one object a line). Nested objects are
// flattened with "." (address.city); arrays are kept as JSON text. The columns are the keys
// of the first 1,000 objects, in the order first seen.
func openJSON(fh io.Reader, name string, lines bool, caps limits.Caps) (*File, error) {
	objects, err := jsonObjects(fh, lines, caps)
	if err != nil {
		return nil, err
	}
	var sample []map[string]string
	seen := map[string]bool{}
	var keys []string
	for len(sample) < 1000 {
		o, err := objects()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		sample = append(sample, o)
		for _, k := range orderedKeys(o) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return nil, ErrEmpty
	}
	if err := checkHeaders(keys, caps); err != nil {
		return nil, err
	}
	t := &Table{Name: name, Headers: keys, firstRow: 1, caps: caps}
	t.next = func() ([]string, error) {
		var o map[string]string
		if len(sample) > 0 {
			o, sample = sample[0], sample[1:]
		} else {
			var err error
			if o, err = objects(); err != nil {
				return nil, err
			}
		}
		row := make([]string, len(keys))
		for i, k := range keys {
			row[i] = o[k]
			delete(o, k)
		}
		for _, v := range o {
			if v != "" {
				t.Dropped++
			}
		}
		return row, nil
	}
	return &File{Format: map[bool]string{true: "jsonl", false: "json"}[lines], Encoding: &Encoding{Name: "utf-8", FirstInvalid: -1}, Tables: []*Table{t}}, nil
}

// orderedKeys keeps the order keys were flattened in (flatten records it under "\x00order").
func orderedKeys(o map[string]string) []string {
	order := strings.Split(o["\x00order"], "\x00")
	delete(o, "\x00order")
	if len(order) == 1 && order[0] == "" {
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	}
	return order
}

// jsonObjects returns a reader of flattened objects.
func jsonObjects(fh io.Reader, lines bool, caps limits.Caps) (func() (map[string]string, error), error) {
	top := 1
	if lines {
		top = 0
	}
	br := bufio.NewReaderSize(&recordGuard{r: fh, json: true, top: top, cellLength: caps.CellLength}, 1<<20)
	dec := json.NewDecoder(br)
	dec.UseNumber()
	if !lines {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the file is not valid JSON: %w", err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, errors.New("a JSON file must hold an array of objects: [{…}, {…}]")
		}
	}
	n := 0
	return func() (map[string]string, error) {
		if !lines && !dec.More() {
			return nil, io.EOF
		}
		n++
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF && lines {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("object %d is not valid JSON: %w", n, err)
		}
		if d := depth(raw); d > caps.JSONDepth {
			return nil, fmt.Errorf("object %d nests %d levels deep; the limit is %d (SLUICE_JSON_MAX_DEPTH)", n, d, caps.JSONDepth)
		}
		out := map[string]string{}
		var order []string
		if err := flatten(raw, "", out, &order); err != nil {
			return nil, fmt.Errorf("object %d: %w", n, err)
		}
		out["\x00order"] = strings.Join(order, "\x00")
		return out, nil
	}, nil
}

// depth is how deeply objects and arrays nest in raw (valid JSON), in one pass.
func depth(raw json.RawMessage) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if d++; d > most {
				most = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// flatten walks one JSON object into dotted keys.
func flatten(raw json.RawMessage, prefix string, out map[string]string, order *[]string) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		if prefix == "" {
			return errors.New("every item must be a JSON object")
		}
		return nil
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key := kt.(string)
		if prefix != "" {
			key = prefix + "." + key
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		s := strings.TrimSpace(string(v))
		switch {
		case strings.HasPrefix(s, "{"):
			if err := flatten(v, key, out, order); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(s, "\""):
			var str string
			_ = json.Unmarshal(v, &str)
			s = str
		case s == "null":
			s = ""
		}
		if _, dup := out[key]; !dup {
			*order = append(*order, key)
		}
		out[key] = s
	}
	return nil
}
