package recordset

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// PostgreSQL turns every record's jsonb into text to scan it for a search: 0.33 s at
// 1,000,000 records, all the cores can give, until the sheet's trigram index is
// built in the background (search_trgm_postgres.go), which takes ten seconds of a core and waits for
// the import to end and the node to be idle. In between, a search reads only the records in
// blocks whose Bloom filter may hold its needle.
//
// A block is 1,024 record keys of a sheet (blk: the key's sequence number >> bloomShift).
// Its filter holds two bits for each trigram (three bytes, ASCII letters lowered, as ILIKE
// in the "C" collation folds them) and each four digits in a row of the text of its
// records' values: strings, numbers and booleans, and the strings, keys, numbers, booleans
// and nulls inside lists and objects, strings both as they are and as PostgreSQL writes
// them in JSON text (nums: every number's text went in). It is worked out as the records
// are written and stored in the write's transaction (about 5% of an import), and a block has
// a row only while its filter holds every record in it: a write that changes a record's
// text deletes its block's row, and the block is then read by every search, as are blocks
// that never had one.
//
// A needle the filters answer (bloomNeedle) lies, wherever a search finds it, inside the
// text of one value or one part of a list or an object: it has three bytes or more, none of
// JSON's punctuation `"\[]{},:` and no space in front (a list's JSON text has one after
// each comma).

// bloomShift: 1,024 keys a block (a variable for tests, which make blocks smaller).
var bloomShift = 10

const (
	// bloomMaxWords is the size a filter is built at (2^18 bits); it is then folded in half
	// while no more than a quarter of its bits would be set, down to bloomMinWords.
	bloomMaxWords = 1 << 12
	bloomMinWords = 8
	// bloomMin is the fewest new records a write gives filters to; fewer leave their blocks
	// without a row (read by every search).
	bloomMin = 64
	// bloomNeedleMax is the most trigrams of a needle tested, and the most runs of four
	// digits.
	bloomNeedleMax = 16
)

// searchBlooms: searches use the filters (a variable for tests, which compare with a scan).
var searchBlooms = true

// bloomSearchMin is the smallest sheet whose searches look at the filters (a scan of fewer
// records takes a few milliseconds; a variable for tests).
var bloomSearchMin int64 = 50000

// bloom is a Bloom filter of trigrams with two hashes, built at its largest size.
type bloom struct {
	w []uint64
	// inexact: a number's text is not in it (needles of number characters read the block)
	inexact bool
}

func newBloom() *bloom { return &bloom{w: make([]uint64, bloomMaxWords)} }

// gramHashes are the two hashes of a trigram (its 24 bits) or of four digits (digitGram),
// 18 bits each from one product (the high bits of a product are the well mixed ones); a
// filter of 2^n bits uses the low n.
func gramHashes(g uint64) (uint32, uint32) {
	p := g * 0x9E3779B97F4A7C15
	return uint32(p >> 46), uint32(p>>28) & (bloomMaxWords*64 - 1)
}

// digitGram is the gram of four digits (the last four bytes of q), apart from every trigram.
func digitGram(q uint32) uint64 { return 1<<32 | uint64(q) }

// lowerASCII maps a byte to itself, ASCII capitals to small letters.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// addText adds the trigrams of s, ASCII letters lowered, and every four digits in a row: in
// a block of 1,024 numbers that count up every three digits are found, not every four.
func (b *bloom) addText(s string) {
	if len(s) < 3 {
		return
	}
	w := b.w[:bloomMaxWords]
	q := uint32(lowerASCII[s[0]])<<8 | uint32(lowerASCII[s[1]]) // the last four bytes
	digits := 0                                                 // digits in a row up to here
	if s[0]-'0' <= 9 && s[1]-'0' <= 9 {
		digits = 2
	} else if s[1]-'0' <= 9 {
		digits = 1
	}
	for i := 2; i < len(s); i++ {
		c := lowerASCII[s[i]]
		q = q<<8 | uint32(c)
		h1, h2 := gramHashes(uint64(q & 0xFFFFFF))
		w[h1>>6] |= 1 << (h1 & 63)
		w[h2>>6] |= 1 << (h2 & 63)
		if c-'0' > 9 {
			digits = 0
		} else if digits++; digits >= 4 {
			h1, h2 := gramHashes(digitGram(q))
			w[h1>>6] |= 1 << (h1 & 63)
			w[h2>>6] |= 1 << (h2 & 63)
		}
	}
}

// addValue adds the text of a stored value: a string's; a number's, a boolean's; the
// strings, keys, numbers, booleans and nulls inside a list or an object, strings as they are
// and escaped as PostgreSQL writes them in the list's text. A number whose text PostgreSQL
// writes otherwise (an exponent, a negative zero) marks the filter inexact for numbers.
func (b *bloom) addValue(v json.RawMessage) {
	if len(v) < 2 {
		return
	}
	switch v[0] {
	case '"':
		if bytes.IndexByte(v, '\\') < 0 {
			b.addText(string(v[1 : len(v)-1]))
			return
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			b.addText(s)
		}
	case '[', '{':
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		var x any
		if d.Decode(&x) == nil {
			b.addInside(x)
		}
	case 't', 'f':
		b.addText(string(v))
	case 'n':
		// an empty cell: no text
	default:
		b.addNumber(string(v))
	}
}

func (b *bloom) addInside(x any) {
	switch x := x.(type) {
	case string:
		b.addText(x)
		if e := pgEscape(x); e != x {
			b.addText(e)
		}
	case json.Number:
		b.addNumber(string(x))
	case bool:
		b.addText(strconv.FormatBool(x))
	case nil:
		b.addText("null")
	case []any:
		for _, e := range x {
			b.addInside(e)
		}
	case map[string]any:
		for k, e := range x {
			b.addInside(k)
			b.addInside(e)
		}
	}
}

// addNumber adds a number's JSON text when PostgreSQL writes it back the same; else the
// filter is inexact for numbers.
func (b *bloom) addNumber(n string) {
	if !pgWritesNumber(n) {
		b.inexact = true
		return
	}
	b.addText(n)
}

// pgWritesNumber: PostgreSQL writes the JSON number n back as it is (digits, a point and
// digits, a minus before anything but zero; not 1e3, written 1000, nor -0, written 0).
func pgWritesNumber(n string) bool {
	digits := strings.TrimPrefix(n, "-")
	whole, frac, point := strings.Cut(digits, ".")
	plain := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	zero := strings.Trim(whole+frac, "0") == ""
	return plain(whole) && (!point || plain(frac)) && (len(whole) == 1 || whole[0] != '0') && (!zero || len(digits) == len(n))
}

// pgEscape is s as PostgreSQL writes it inside a JSON string (escape_json).
func pgEscape(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' }) < 0 {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			out.WriteString(`\b`)
		case '\f':
			out.WriteString(`\f`)
		case '\n':
			out.WriteString(`\n`)
		case '\r':
			out.WriteString(`\r`)
		case '\t':
			out.WriteString(`\t`)
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		default:
			if c < 0x20 {
				out.WriteString(`\u00`)
				out.WriteByte("0123456789abcdef"[c>>4])
				out.WriteByte("0123456789abcdef"[c&15])
			} else {
				out.WriteByte(c)
			}
		}
	}
	return out.String()
}

// bytes returns the filter, folded (fold) to the smallest size (a power of two) at which no
// more than a quarter of its bits are set (a trigram not in it then passes one time in
// sixteen); bit p is bit p&7 of byte p>>3, as PostgreSQL's get_bit reads. A block's records
// yet to come are added to it unfolded.
func (b *bloom) bytes(fold bool) []byte {
	w := b.w
	for fold && len(w) > bloomMinWords {
		half, set := len(w)/2, 0
		for i := range half {
			set += bits.OnesCount64(w[i] | w[i+half])
		}
		if set*4 > half*64 {
			break
		}
		for i := range half {
			w[i] |= w[i+half]
		}
		w = w[:half]
	}
	out := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(out[8*i:], x)
	}
	return out
}

// add adds a filter stored unfolded.
func (b *bloom) add(stored []byte) {
	for i := range b.w {
		b.w[i] |= binary.LittleEndian.Uint64(stored[8*i:])
	}
}

// mergeBloom is the filter of a and b together, at the smaller size of the two (a bigger
// one folds down: the low bits of a hash are all its smaller size reads).
func mergeBloom(a, b []byte) []byte {
	if len(a) > len(b) {
		a, b = b, a
	}
	out := slices.Clone(a)
	for i, c := range b {
		out[i%len(a)] |= c
	}
	return out
}

// blockOf is the block of a record key.
func blockOf(rid int64) int64 { return (rid & (1<<stored.SeqBits - 1)) >> bloomShift }

// blockStart is the first record key of sheet sk's block blk.
func blockStart(sk, blk int64) int64 { return sk<<stored.SeqBits | blk<<bloomShift }

// valuesWithin reports whether every value of row but empty ones is also in old (the
// filter of old's block then holds the text of row).
func valuesWithin(row, old records.Row) bool {
	for _, v := range row {
		if len(v) == 0 || string(v) == "null" {
			continue
		}
		if !slices.ContainsFunc(old, func(o json.RawMessage) bool { return bytes.Equal(o, v) }) {
			return false
		}
	}
	return true
}

// bloomWork is what a write changes in its sheet's filters (PostgreSQL): the blocks of
// records whose text changed lose their rows, and the new records this transaction reserved
// keys for (stored.Sheet.fresh) get filters, worked out beside the write's statements (an
// import's COPY keeps PostgreSQL busy meanwhile).
type bloomWork struct {
	stale  map[int64]bool
	blocks []freshBlock
	done   chan struct{}
}

// freshBlock is the filter of a block's new records: bits when they start the block, else
// (records before them may be in the block) b, unfolded, and first, their first key.
type freshBlock struct {
	blk, first int64
	complete   bool // the records reach the block's end: no more come
	nums       bool // every number's text is in the filter
	bits       []byte
	b          *bloom
}

// planBlooms sorts a write's changes out for its sheet's filters and starts working out the
// new records' (nil: a SQLite sheet).
func planBlooms(rs *stored.Sheet, changes []*change) *bloomWork {
	if rs.Dialect != sqldb.PostgresDialect || rs.SK == 0 {
		return nil
	}
	bw := &bloomWork{stale: map[int64]bool{}, done: make(chan struct{})}
	var fresh []*stored.State
	for _, c := range changes {
		switch {
		case c.kind == kDelete:
		case c.kind == kInsert && rs.Fresh > 0 && c.new.RID >= rs.Fresh:
			fresh = append(fresh, c.new)
		case c.old != nil && c.new != nil && valuesWithin(c.new.Row, c.old.Row):
		default:
			bw.stale[blockOf(c.rid())] = true
		}
	}
	if len(fresh) < bloomMin {
		for _, st := range fresh {
			bw.stale[blockOf(st.RID)] = true
		}
		close(bw.done)
		return bw
	}
	go func() {
		defer close(bw.done)
		sortByKey(fresh)
		b := newBloom()
		for i := 0; i < len(fresh); {
			blk, first := blockOf(fresh[i].RID), fresh[i].RID
			clear(b.w)
			b.inexact = false
			for ; i < len(fresh) && blockOf(fresh[i].RID) == blk; i++ {
				for _, v := range fresh[i].Row {
					b.addValue(v)
				}
			}
			start := blockStart(rs.SK, blk)
			fb := freshBlock{blk: blk, first: first, complete: fresh[i-1].RID == start|(1<<bloomShift-1), nums: !b.inexact}
			if first > start {
				fb.b = &bloom{w: slices.Clone(b.w)}
			} else {
				fb.bits = b.bytes(fb.complete)
			}
			bw.blocks = append(bw.blocks, fb)
		}
	}()
	return bw
}

// sortByKey sorts states by record key (an import's already are).
func sortByKey(list []*stored.State) {
	byKey := func(a, b *stored.State) int { return cmp.Compare(a.RID, b.RID) }
	if !slices.IsSortedFunc(list, byKey) {
		slices.SortFunc(list, byKey)
	}
}

// wait returns once the new records' filters are worked out (at once for nil).
func (bw *bloomWork) wait() {
	if bw != nil {
		<-bw.done
	}
}

// writeBlooms writes a write's changes to its sheet's filters, once worked out: a new row for
// a block its new records start; for one they do not, added to the block's row, or a new
// row when the block holds no record before them.
func (tx *Tx) writeBlooms(rs *stored.Sheet, bw *bloomWork) error {
	if bw == nil {
		return nil
	}
	bw.wait()
	if len(bw.stale) > 0 {
		blks := make([]string, 0, len(bw.stale))
		for blk := range bw.stale {
			blks = append(blks, strconv.FormatInt(blk, 10))
		}
		if err := tx.Later("update search filters", `DELETE FROM search_blooms WHERE sk = ? AND blk IN (`+strings.Join(blks, ",")+`)`, rs.SK); err != nil {
			return err
		}
	}
	var rows []any
	for _, fb := range bw.blocks {
		if bw.stale[fb.blk] {
			continue
		}
		if fb.b != nil {
			var old []byte
			var nums int
			err := tx.QueryRow(`SELECT bits, nums FROM search_blooms WHERE sk = ? AND blk = ?`, rs.SK, fb.blk).Scan(&old, &nums)
			if err == nil {
				merged := mergeBloom(old, fb.b.bytes(true)) // (a folded row: rare, written in full by one write)
				if len(old) == len(fb.b.w)*8 {
					fb.b.add(old)
					merged = fb.b.bytes(fb.complete)
				}
				if err := tx.Later("update search filters", `UPDATE search_blooms SET bits = ?, nums = ? WHERE sk = ? AND blk = ?`, merged, nums&sqldb.BoolInt(fb.nums), rs.SK, fb.blk); err != nil {
					return err
				}
				continue
			}
			var before bool
			if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM records WHERE rid BETWEEN ? AND ?)`, blockStart(rs.SK, fb.blk), fb.first-1).Scan(&before); err != nil {
				return errs.Wrap(err, "update search filters")
			}
			if before {
				continue
			}
			fb.bits = fb.b.bytes(fb.complete)
		}
		rows = append(rows, rs.SK, fb.blk, fb.bits, sqldb.BoolInt(fb.nums))
	}
	for len(rows) > 0 {
		n := min(len(rows)/4, 100)
		if err := tx.Later("write search filters", `INSERT INTO search_blooms (sk, blk, bits, nums) VALUES `+sqldb.Tuples(n, 4)+
			` ON CONFLICT (sk, blk) DO UPDATE SET bits = excluded.bits, nums = excluded.nums`, rows[:4*n]...); err != nil {
			return err
		}
		rows = rows[4*n:]
	}
	return nil
}

// bloomNeedle reports whether a search's needle (ASCII letters lowered) lies, wherever a
// search finds it, inside the text of one value, or one string, key, number, boolean or null
// of a list or an object (the filters hold these); numbers: it may lie in a number's text
// (only filters that hold every number's text rule it out).
func bloomNeedle(needle string) (ok, numbers bool) {
	if len(needle) < 3 || needle[0] == ' ' || strings.ContainsAny(needle, `"\[]{},:`) {
		return false, false
	}
	return true, strings.Trim(needle, "0123456789.e+-") == ""
}

// needleHashes are the hashes of up to bloomNeedleMax distinct trigrams of needle, and of
// up to bloomNeedleMax runs of four digits in it.
func needleHashes(needle string) []uint32 {
	var out []uint32
	add := func(g uint64) {
		h1, h2 := gramHashes(g)
		if !slices.Contains(out, h1) || !slices.Contains(out, h2) {
			out = append(out, h1, h2)
		}
	}
	for i := 0; i+3 <= len(needle) && len(out) < 2*bloomNeedleMax; i++ {
		add(uint64(needle[i])<<16 | uint64(needle[i+1])<<8 | uint64(needle[i+2]))
	}
	for i, n := 0, len(out); i+4 <= len(needle) && len(out) < n+2*bloomNeedleMax; i++ {
		if q := needle[i : i+4]; strings.Trim(q, "0123456789") == "" {
			add(digitGram(uint32(q[0])<<24 | uint32(q[1])<<16 | uint32(q[2])<<8 | uint32(q[3])))
		}
	}
	return out
}

// bloomRanges returns the ranges of the sheet's record keys outside every block whose filter
// rules the needle out, when the filters rule out half the sheet or more in
// no more than bloomRangesMax ranges; ok is false otherwise (the search scans the sheet).
func (tx *readCtx) bloomRanges(rs *stored.Sheet, needle string) (f ffql.Frag, ok bool) {
	ok, numbers := bloomNeedle(needle)
	if !searchBlooms || !ok || rs.Dialect != sqldb.PostgresDialect || rs.SK == 0 || rs.Total < bloomSearchMin {
		return ffql.Frag{}, false
	}
	hashes := needleHashes(needle)
	tests := make([]string, len(hashes))
	args := make([]any, 0, len(hashes))
	for i, h := range hashes {
		tests[i] = `get_bit(b, CAST(? AS BIGINT) & (length(b) * 8 - 1)) = 1`
		args = append(args, int64(h))
	}
	// (A filter over 2 KB is stored apart, and each get_bit would read it again: a copy is
	// made once a row, 21 ms instead of 4 when every block passes.)
	trusted := ""
	if numbers {
		trusted = ` AND nums = 1`
	}
	rows, err := tx.q.QueryContext(tx.ctx, `SELECT blk FROM (SELECT blk, bits || '\x'::bytea AS b FROM search_blooms WHERE sk = ?`+trusted+` OFFSET 0) f
		WHERE NOT (`+strings.Join(tests, ` AND `)+`) ORDER BY blk`, append([]any{rs.SK}, args...)...)
	if err != nil {
		return ffql.Frag{}, false
	}
	defer rows.Close()
	var out []ffql.Frag
	lo, hi := stored.RIDRange(rs.SK)
	next, ruled := lo, int64(0) // (next: the first key not yet in a range or ruled out)
	for rows.Next() {
		var blk int64
		if err := rows.Scan(&blk); err != nil {
			return ffql.Frag{}, false
		}
		ruled++
		if start := blockStart(rs.SK, blk); start > next {
			if len(out) == bloomRangesMax {
				return ffql.Frag{}, false
			}
			out = append(out, ffql.Frag{SQL: `r.rid BETWEEN ? AND ?`, Args: []any{next, start - 1}})
		}
		next = blockStart(rs.SK, blk+1)
	}
	if rows.Err() != nil || ruled*2 < rs.Total>>bloomShift+1 {
		return ffql.Frag{}, false
	}
	if next <= hi {
		out = append(out, ffql.Frag{SQL: `r.rid BETWEEN ? AND ?`, Args: []any{next, hi}})
	}
	if len(out) == 0 {
		return ffql.Frag{SQL: "FALSE"}, true
	}
	return anyOf(out), true
}

// bloomRangesMax is the most ranges of keys a search through the filters reads.
const bloomRangesMax = 256
