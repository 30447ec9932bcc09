package tally

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/sqldb"
)

// tallyOf builds a tally of values with the given hashes (the n-th record valid when n is odd).
func tallyOf(hashes []uint64, vals ...string) *Half {
	t := &Half{}
	for i, v := range vals {
		e := Ent{Hash: hashes[i], Pre: OrderPrefix([]byte(v)), Off: uint32(len(t.Arena)), N: uint32(len(v))}
		if i%2 == 1 {
			e.N |= ValidFlag
		}
		t.Ents = append(t.Ents, e)
		t.Arena = append(t.Arena, v...)
	}
	t.Ents = RadixSort(t.Ents)
	return t
}

// Values whose hashes agree are told apart by their bytes, within a half and across the two.
func TestMergeTalliesTellsValuesOfOneHashApart(t *testing.T) {
	same := []uint64{42 << 40, 42 << 40, 42 << 40, 42 << 40}
	a := tallyOf(same, `"x"`, `"y"`, `"x"`, `"z"`)
	b := tallyOf([]uint64{42 << 40, 7 << 40, 42 << 40, 99 << 40}, `"y"`, `"w"`, `"x"`, `1`)
	got := map[string][2]int64{}
	Merge(a, b, func(c Held) {
		if _, twice := got[string(c.Cell.Value)]; twice {
			t.Errorf("%s counted twice", c.Cell.Value)
		}
		got[string(c.Cell.Value)] = [2]int64{c.Cell.Total, c.Cell.Valid}
		if c.Pre != OrderPrefix(c.Cell.Value) {
			t.Errorf("%s handed with another value's order prefix", c.Cell.Value)
		}
	})
	want := map[string][2]int64{`"x"`: {3, 0}, `"y"`: {2, 1}, `"z"`: {1, 1}, `"w"`: {1, 1}, `1`: {1, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for v, c := range want {
		if got[v] != c {
			t.Fatalf("%s: got %v, want %v", v, got[v], c)
		}
	}
}

func TestRadixSortOrdersBySortKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var in []Ent
	for i := range 5000 {
		h := r.Uint64()
		if i%10 == 0 {
			h &= 0xffff // low bits only: below the sort key
		}
		in = append(in, Ent{Hash: h, Off: uint32(i)})
	}
	out := RadixSort(slices.Clone(in))
	if !slices.IsSortedFunc(out, func(a, b Ent) int { return cmp.Compare(a.SortKey(), b.SortKey()) }) {
		t.Fatal("not in sort key order")
	}
	seen := map[uint32]bool{}
	for _, e := range out {
		seen[e.Off] = true
	}
	if len(seen) != len(in) {
		t.Fatalf("%d of %d entries kept", len(seen), len(in))
	}
}

// orderPrefix agrees with compareStored: a value of lesser prefix comes first.
func TestOrderPrefixAgreesWithTheValueOrder(t *testing.T) {
	vals := []string{`-1e300`, `-2.5`, `-0`, `0`, `false`, `0.5`, `1`, `true`, `1.0`, `10`, `1e21`, `""`, `" a"`, `"A"`, `"a"`, `"a\u0000"`, `"ab"`, `"abcdefgh"`, `"abcdefghi"`, `"abcdefgi"`, `"\u00e9"`, `"é"`, `"日本"`, `"😀"`, `[]`, `["a"]`, `{"a":1}`, `"~"`}
	for _, a := range vals {
		for _, b := range vals {
			pa, pb := OrderPrefix([]byte(a)), OrderPrefix([]byte(b))
			c := CompareStored([]byte(a), []byte(b))
			if (pa < pb && c >= 0) || (pa > pb && c <= 0) {
				t.Errorf("%s, %s: prefixes %x, %x but compared %d", a, b, pa, pb, c)
			}
		}
	}
}

// A page's worth of the most frequent values is all a tally keeps once there are more
// values than a list worth remembering (tallyOrder.whole); up to then, all of them.
func TestTopCellsKeepsTheWholeListWhileSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var in []Held
	for i := range 300 {
		v := []byte(`"v` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"`)
		in = append(in, Held{Cell: CellCount{Value: v, Total: int64(r.IntN(20) + 1)}, Pre: OrderPrefix(v)})
	}
	for _, o := range []Order{{Top: 7, Whole: 300}, {Top: 7, Whole: 299}, {Top: 7, Whole: 20}, {Top: 250, Whole: 20}, {Top: 400, Whole: 20}, {Top: 7}, {ByValue: true, Desc: true, Top: 5, Whole: 10}} {
		want := slices.Clone(in)
		slices.SortFunc(want, func(a, b Held) int {
			if o.Before(a, b) {
				return -1
			}
			return 1
		})
		wantCut := o.Whole > 0 && len(in) > o.Whole
		if wantCut || o.Whole == 0 {
			want = want[:min(o.Top, len(want))]
		}
		s := &Top{Order: o}
		for _, c := range in {
			s.Add(c)
		}
		got := s.Sorted()
		if s.Cut != wantCut || len(got) != len(want) {
			t.Fatalf("%+v: %d values, cut %v; want %d, cut %v", o, len(got), s.Cut, len(want), wantCut)
		}
		for i := range got {
			if string(got[i].Value) != string(want[i].Cell.Value) || got[i].Total != want[i].Cell.Total {
				t.Fatalf("%+v: value %d is %s (%d), want %s (%d)", o, i, got[i].Value, got[i].Total, want[i].Cell.Value, want[i].Cell.Total)
			}
		}
	}
}

// Merging the lower and the upper half of the hashes at once selects what one merge of the
// whole selects: the first values in either order, all of them while no more than whole,
// and cut when there are more — also when only the upper half alone has more than whole.
func TestMergeInHalvesAsOneMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		var ha, hb []uint64
		var va, vb []string
		n := 1 + r.IntN(40)
		upperOnly := round%3 == 0 // (every value's hash in the upper half)
		for range n {
			v := r.IntN(25)
			h := uint64(v)*0x9E3779B97F4A7C15 | 1
			if upperOnly {
				h |= 1 << 63
			}
			if r.IntN(2) == 0 {
				ha, va = append(ha, h), append(va, `"v`+string(rune('a'+v))+`"`)
			} else {
				hb, vb = append(hb, h), append(vb, `"v`+string(rune('a'+v))+`"`)
			}
		}
		o := Order{ByValue: r.IntN(2) == 0, Desc: r.IntN(2) == 0, Top: r.IntN(6), Whole: r.IntN(12)}
		if o.Top == 0 {
			o.Whole = 0
		}
		want := &Top{Order: o}
		Merge(tallyOf(ha, va...), tallyOf(hb, vb...), want.Add)
		wantCut := want.Cut
		got, cut := MergeInHalves(tallyOf(ha, va...), tallyOf(hb, vb...), o)
		if !slices.EqualFunc(got, want.Sorted(), func(a, b CellCount) bool {
			return string(a.Value) == string(b.Value) && a.Total == b.Total && a.Valid == b.Valid
		}) || cut != wantCut {
			t.Fatalf("round %d, order %+v: merged in halves %v (cut %v), at once %v (cut %v)", round, o, got, cut, want.Sorted(), wantCut)
		}
	}
}

// PostgreSQL's slice reader hands over every slice's row, columns apart and in order, and
// when the caller stops, its error comes back and the connection goes back to the pool in
// working order.
func TestEachSliceRawReadsEverySliceAndStops(t *testing.T) {
	core, err := sqldb.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	db := core
	defer db.Close()
	if db.Reader.Dialect() != sqldb.PostgresDialect {
		t.Skip("PostgreSQL only")
	}
	ctx := t.Context()
	query := func(s KeySlice) ffql.Frag {
		return ffql.Frag{SQL: `SELECT CAST(CAST(? AS BIGINT) AS TEXT), left(CAST(CAST(? AS BIGINT) AS TEXT), 0), repeat('x', 100000)`, Args: []any{s.From, s.To}}
	}
	slicesOf := func(n int64) iter.Seq[KeySlice] {
		return NewKeySlices(1, n*SliceSize).Of(ffql.Frag{SQL: "true"})
	}
	for range 3 { // (again and again on the pool's connections)
		var got []string
		err := EachSliceRaw(ctx, db.Reader, "test", query, slicesOf(10), func(cols [][]byte) error {
			if len(cols) != 3 || len(cols[1]) != 0 || len(cols[2]) != 100000 {
				return fmt.Errorf("columns %d", len(cols))
			}
			got = append(got, string(cols[0]))
			return nil
		})
		want := []string{}
		for from := int64(1); from <= 10*SliceSize; from += SliceSize {
			want = append(want, fmt.Sprint(from))
		}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("read %v (%v), want %v", got, err, want)
		}
		stop, n := errors.New("stop"), 0
		err = EachSliceRaw(ctx, db.Reader, "test", query, slicesOf(10), func(cols [][]byte) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 3 {
			t.Fatalf("stopped at %d with %v", n, err)
		}
	}
}

// selectFirst puts the first k values in order at the front, the k-th last among them,
// whatever the input's order (sorted, reversed, random, few distinct prefixes).
func TestSelectFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	o := Order{ByValue: true}
	for round := range 500 {
		n := 1 + r.IntN(300)
		in := make([]Held, n)
		for i := range in {
			v := fmt.Sprintf(`"%05d"`, r.IntN(1000))
			if round%4 == 0 {
				v = fmt.Sprintf(`"%05d"`, i) // distinct, in order
			}
			in[i] = Held{Cell: CellCount{Value: json.RawMessage(v), Total: 1}, Pre: uint64(r.IntN(3))}
		}
		if round%8 == 1 {
			slices.Reverse(in)
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(a, b Held) int {
			if o.Before(a, b) {
				return -1
			}
			if o.Before(b, a) {
				return 1
			}
			return 0
		})
		k := 1 + r.IntN(n)
		got := slices.Clone(in)
		SelectFirst(got, k, o.Before)
		if o.Before(got[k-1], want[k-1]) || o.Before(want[k-1], got[k-1]) {
			t.Fatalf("round %d: the %d-th is %s, want %s", round, k, got[k-1].Cell.Value, want[k-1].Cell.Value)
		}
		for i := range k {
			if o.Before(got[k-1], got[i]) {
				t.Fatalf("round %d: %s after the %d-th, %s", round, got[i].Cell.Value, k, got[k-1].Cell.Value)
			}
		}
		for i := k; i < n; i++ {
			if o.Before(got[i], got[k-1]) {
				t.Fatalf("round %d: %s left out, before the %d-th, %s", round, got[i].Cell.Value, k, got[k-1].Cell.Value)
			}
		}
	}
}
