package recordset

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sluice/sluice/records"
)

// holds reports whether filter f (as stored) may hold needle, as the search's SQL tests it.
func holds(f []byte, needle string) bool {
	for _, h := range needleHashes(needle) {
		p := int(h) & (len(f)*8 - 1)
		if f[p>>3]>>(p&7)&1 == 0 {
			return false
		}
	}
	return true
}

// A filter, folded and merged, holds every needle a search through it may take that lies in
// the text of a string, or of a list or an object as PostgreSQL writes it.
func TestBloomHoldsEveryNeedleOfItsValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "B", "c", "Z", "1", "9", " ", "é", "日", "😀", "\n", "\t", "\x1f", `"`, `\`, "-", ".", "@", "x"}
	word := func() string {
		s := ""
		for range 3 + r.IntN(12) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	var texts []string // the texts a search compares: a string's, and a list's JSON text
	var vals records.Row
	for range 300 {
		var v any
		switch r.IntN(6) {
		case 0:
			v = []any{word(), 12.5, true, nil, word(), -3}
		case 1:
			v = map[string]any{word(): word(), "n": 3.25, "f": false}
		case 2:
			v = []any{12.5, -0.125, 1234567, r.IntN(2) == 0}[r.IntN(4)]
		default:
			v = word()
		}
		b, _ := json.Marshal(v)
		vals = append(vals, b)
		if s, ok := v.(string); ok {
			texts = append(texts, s)
		} else {
			texts = append(texts, pgText(v))
		}
	}
	b := newBloom()
	for _, v := range vals[:150] {
		b.addValue(v)
	}
	first := b.bytes(true)
	b = newBloom()
	for _, v := range vals[150:] {
		b.addValue(v)
	}
	for name, f := range map[string][]byte{"merged": mergeBloom(first, b.bytes(true)), "merged the other way": mergeBloom(b.bytes(true), first)} {
		n := 0
		for _, s := range texts {
			for i := range len(s) {
				for j := i + 3; j <= len(s); j++ {
					needle := records.ASCIILower(s[i:j])
					if ok, _ := bloomNeedle(needle); !ok {
						continue
					}
					n++
					if !holds(f, needle) {
						t.Fatalf("%s filter: needle %q of %q is not in it", name, needle, s)
					}
				}
			}
		}
		if n < 1000 {
			t.Fatalf("only %d needles tried", n)
		}
	}
	if len(first) >= bloomMaxWords*8 || len(first) < bloomMinWords*8 {
		t.Fatalf("filter of 150 values is %d bytes: not folded", len(first))
	}
	if holds(first, "qqqqq") {
		t.Fatal("a needle of none of the values is in the filter")
	}
}

// pgText is PostgreSQL's JSON text of a list or an object of the test's (keys sorted as
// jsonb sorts them: shorter first, then by bytes).
func pgText(v any) string {
	switch v := v.(type) {
	case string:
		return `"` + pgEscape(v) + `"`
	case []any:
		s := "["
		for i, e := range v {
			if i > 0 {
				s += ", "
			}
			s += pgText(e)
		}
		return s + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		for i := range keys {
			for j := i + 1; j < len(keys); j++ {
				if len(keys[j]) < len(keys[i]) || len(keys[j]) == len(keys[i]) && keys[j] < keys[i] {
					keys[i], keys[j] = keys[j], keys[i]
				}
			}
		}
		s := "{"
		for i, k := range keys {
			if i > 0 {
				s += ", "
			}
			s += pgText(k) + ": " + pgText(v[k])
		}
		return s + "}"
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// The needles the filters answer are those that cannot lie across a list's punctuation; a
// needle of number characters only in filters that hold every number's text.
func TestBloomNeedle(t *testing.T) {
	for needle, want := range map[string][2]bool{
		"ann": {true, false}, "ann lee": {true, false}, "user5@example.com": {true, false}, "12a": {true, false}, "é日": {true, false},
		"e-mail": {true, false}, "rue": {true, false}, "null": {true, false},
		"12.5": {true, true}, "1e+5": {true, true}, "-0.": {true, true}, "555-1234": {true, true},
		"an": {false, false}, " 12": {false, false}, "a,b": {false, false}, `a"b`: {false, false}, "x]": {false, false}, "k:v": {false, false}, `a\b`: {false, false},
	} {
		if ok, numbers := bloomNeedle(needle); ok != want[0] || numbers != want[1] {
			t.Errorf("bloomNeedle(%q) = %v, %v, want %v", needle, ok, numbers, want)
		}
	}
}

// A number PostgreSQL writes back as it is stored goes in a filter's text; any other makes
// the filter inexact for numbers.
func TestBloomNumbers(t *testing.T) {
	for n, exact := range map[string]bool{
		"12.50": true, "-3": true, "0": true, "0.5": true, "-0.125": true, "11111111111111111999": true, "1234567": true,
		"1e21": false, "1E5": false, "-0": false, "-0.00": false, "2.5e-3": false,
	} {
		b := newBloom()
		b.addValue(json.RawMessage(n))
		if b.inexact == exact {
			t.Errorf("number %s: inexact %v, want %v", n, b.inexact, !exact)
		}
		if exact && len(n) >= 3 && !holds(b.bytes(true), n) {
			t.Errorf("number %s is not in its filter", n)
		}
		b = newBloom()
		b.addValue(json.RawMessage(`["x", ` + n + `]`))
		if b.inexact == exact {
			t.Errorf("number %s in a list: inexact %v, want %v", n, b.inexact, !exact)
		}
	}
}
