// Package extract turns uploaded files into tables of text: CSV and other delimited text in
// any common encoding, Excel workbooks, JSON and JSON Lines. Readers stream, so memory does
// not grow with the file, and problems (invalid bytes, ragged rows) are counted and reported,
// never silently dropped.
package extract

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding names a detected text encoding and what was wrong with the bytes.
type Encoding struct {
	Name         string // utf-8, utf-16le, utf-16be or windows-1252
	BOM          bool
	Invalid      int64 // invalid byte sequences, each replaced by U+FFFD
	FirstInvalid int64 // byte offset of the first one, -1 when there is none
}

const sniffSize = 64 << 10

// decode detects the encoding of r from its byte order mark or its first 64 KiB and returns
// a reader of UTF-8 text.
func decode(r io.Reader) (io.Reader, *Encoding) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, _ := br.Peek(sniffSize)
	enc := &Encoding{FirstInvalid: -1}
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		enc.Name, enc.BOM = "utf-8", true
		_, _ = br.Discard(3)
		return &utf8Checker{r: br, enc: enc}, enc
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		enc.Name, enc.BOM = "utf-16le", true
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder()), enc
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		enc.Name, enc.BOM = "utf-16be", true
		return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()), enc
	}
	if le, be := utf16Zeros(head); le || be {
		order := unicode.LittleEndian
		enc.Name = "utf-16le"
		if be {
			order, enc.Name = unicode.BigEndian, "utf-16be"
		}
		return transform.NewReader(br, unicode.UTF16(order, unicode.IgnoreBOM).NewDecoder()), enc
	}
	if validUTF8Prefix(head) {
		enc.Name = "utf-8"
		return &utf8Checker{r: br, enc: enc}, enc
	}
	enc.Name = "windows-1252"
	return transform.NewReader(br, charmap.Windows1252.NewDecoder()), enc
}

// utf16Zeros spots BOM-less UTF-16 text: ASCII characters leave every other byte zero.
func utf16Zeros(b []byte) (le, be bool) {
	if len(b) < 4 {
		return false, false
	}
	var even, odd int
	n := len(b) &^ 1
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			even++
		}
		if b[i+1] == 0 {
			odd++
		}
	}
	half := n / 2
	return odd > half*6/10 && even < half/10, even > half*6/10 && odd < half/10
}

// validUTF8Prefix is utf8.Valid, forgiving a rune cut off at the end of the sample.
func validUTF8Prefix(b []byte) bool {
	for i := 0; i < 3 && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// utf8Checker passes UTF-8 through, replacing each invalid byte with U+FFFD and counting it.
type utf8Checker struct {
	r     io.Reader
	enc   *Encoding
	off   int64  // offset of carry[0] in the input
	carry []byte // bytes of an incomplete rune from the last read
	out   []byte // converted bytes not yet returned
	err   error
}

func (u *utf8Checker) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		buf := make([]byte, 32<<10)
		n, err := u.r.Read(buf)
		u.err = err
		in := append(u.carry, buf[:n]...)
		u.carry = nil
		u.out = u.convert(in, err != nil)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

func (u *utf8Checker) convert(in []byte, last bool) []byte {
	if utf8.Valid(in) {
		u.off += int64(len(in))
		return in
	}
	out := make([]byte, 0, len(in)+16)
	i := 0
	for i < len(in) {
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size <= 1 {
			if !last && !utf8.FullRune(in[i:]) {
				u.carry = append([]byte{}, in[i:]...)
				break
			}
			if u.enc.FirstInvalid < 0 {
				u.enc.FirstInvalid = u.off + int64(i)
			}
			u.enc.Invalid++
			out = append(out, "\uFFFD"...)
			i++
			continue
		}
		out = append(out, in[i:i+size]...)
		i += size
	}
	u.off += int64(i)
	return out
}
