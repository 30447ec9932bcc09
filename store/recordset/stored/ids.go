package stored

import (
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/sqldb"
)

// A record's integer key holds its sheet key in the high bits and its sequence number in the
// sheet in the low SeqBits, so a sheet's records form one contiguous, ordered range.
const SeqBits = 36

// RIDRange returns the first and last possible rid of sheet key sk.
func RIDRange(sk int64) (int64, int64) { return sk << SeqBits, sk<<SeqBits | (1<<SeqBits - 1) }

// RecordIDLen is the number of base62 characters after the prefix (62^11 > 2^64).
const RecordIDLen = 11

// RecordID turns a record key into its public id: us_rc_ and 11 characters. The key is
// scrambled by a keyless Feistel permutation so ids do not read as counters; it is not a
// secret, and every lookup is also scoped by sheet.
func RecordID(rid int64) string {
	v := feistel(uint64(rid), false)
	var b [RecordIDLen]byte
	for i := RecordIDLen - 1; i >= 0; i-- {
		b[i] = sqldb.IDAlphabet[v%62]
		v /= 62
	}
	return sqldb.PrefixRecord + string(b[:])
}

// ParseRecordID returns the key of a public record id. Errors: invalid.
func ParseRecordID(id string) (int64, error) {
	s, ok := strings.CutPrefix(id, sqldb.PrefixRecord)
	if !ok || len(s) != RecordIDLen {
		return 0, errs.Invalidf("ids", "Invalid record id %q", id)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(sqldb.IDAlphabet, s[i])
		if d < 0 {
			return 0, errs.Invalidf("ids", "Invalid record id %q", id)
		}
		hi := v * 62
		if hi/62 != v || hi+uint64(d) < hi {
			return 0, errs.Invalidf("ids", "Invalid record id %q", id)
		}
		v = hi + uint64(d)
	}
	rid := feistel(v, true)
	if rid>>63 != 0 || rid == 0 {
		return 0, errs.Invalidf("ids", "Invalid record id %q", id)
	}
	return int64(rid), nil
}

var feistelKeys = [4]uint32{0x9E3779B9, 0x7F4A7C15, 0x94D049BB, 0x2545F491}

func feistelRound(x, k uint32) uint32 {
	x ^= k
	x *= 0x85EBCA6B
	x ^= x >> 13
	x *= 0xC2B2AE35
	x ^= x >> 16
	return x
}

// feistel permutes 64-bit values; inverse undoes it.
func feistel(v uint64, inverse bool) uint64 {
	l, r := uint32(v>>32), uint32(v)
	if !inverse {
		for _, k := range feistelKeys {
			l, r = r, l^feistelRound(r, k)
		}
	} else {
		for i := len(feistelKeys) - 1; i >= 0; i-- {
			l, r = r^feistelRound(l, feistelKeys[i]), l
		}
	}
	return uint64(l)<<32 | uint64(r)
}

// Within narrows where to the keys of one half.
func Within(where ffql.Frag, keys [2]int64) ffql.Frag {
	return ffql.Frag{SQL: `(` + where.SQL + `) AND r.rid BETWEEN ? AND ?`, Args: append(append([]any{}, where.Args...), keys[0], keys[1])}
}
