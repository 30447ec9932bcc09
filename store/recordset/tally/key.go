package tally

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Key is a value's place among values of the same count: numbers (booleans as 1 and
// 0) by value first, then text by its bytes (a list or object: its JSON text).
type Key struct {
	num  bool
	n    float64
	text string
}

func KeyOf(v []byte) Key {
	switch {
	case string(v) == "true":
		return Key{num: true, n: 1}
	case string(v) == "false":
		return Key{num: true}
	case len(v) == 0:
		return Key{}
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		return Key{text: s}
	case v[0] == '[' || v[0] == '{':
		return Key{text: string(v)}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return Key{num: err == nil, n: f, text: string(v)}
}

// Compare orders keys: numbers before text, numbers by value, text by its bytes.
func (k Key) Compare(o Key) int {
	if k.num != o.num {
		if k.num {
			return -1
		}
		return 1
	}
	if k.num && k.n != o.n {
		return cmp.Compare(k.n, o.n)
	}
	return strings.Compare(k.text, o.text)
}

// Place is the key as value_counts stores it: n (+∞ for text, after every number) and t
// (the text, "" for numbers).
func (k Key) Place() (float64, string) {
	if k.num {
		return k.n, ""
	}
	return math.Inf(1), k.text
}
