package formats

import (
	"strconv"
	"strings"
)

// Column counts what every value of a column can be read as; Add each value, then ask for
// the reading of a date, number or boolean field. It keeps counts only, so it runs over a
// whole column of any length. The JSON form is kept with an uploaded file's sheet.
type Column struct {
	Values int `json:"values"` // non-empty values

	// Dates
	DateOnlyDMY int    `json:"dateOnlyDMY"` // 23/08/1984: day first is the only reading
	DateOnlyMDY int    `json:"dateOnlyMDY"` // 08/23/1984
	DateEither  int    `json:"dateEither"`  // 05/08/1963: both readings
	DateFixed   int    `json:"dateFixed"`   // ISO, month names, CJK, 12/12/2020: one reading
	DateSerial  int    `json:"dateSerial"`  // Excel serial numbers
	DateExample string `json:"dateExample,omitempty"`
	AmbExample  string `json:"ambiguousDateExample,omitempty"`

	// Numbers
	NumPoint      int    `json:"numberPoint"`     // only "." reads it as decimal (0.5, 1,234.56)
	NumComma      int    `json:"numberComma"`     // only "," reads it (1,5  1.234,56)
	NumEither     int    `json:"numberEither"`    // both read it alike (1234)
	NumAmbiguous  int    `json:"numberAmbiguous"` // both read it, differently (1,234)
	NumExample    string `json:"numberExample,omitempty"`
	NumAmbExample string `json:"ambiguousNumberExample,omitempty"`

	Bools int `json:"booleans"`
}

// Add counts one value.
func (c *Column) Add(s string) {
	if t := trimSpace(s); t != "" && c.addCommon(t) {
		c.Values++
		return
	}
	c.addGeneral(s)
}

// addGeneral counts one value with the general readers only.
func (c *Column) addGeneral(s string) {
	s = trimSpace(s)
	if s == "" {
		return
	}
	c.Values++
	if len(s) > 48 {
		return // (long text: no date, number or yes/no)
	}
	digits, letters := 0, 0
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			digits++
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80:
			letters++
		case b == '@':
			return // e-mail addresses: neither dates nor numbers
		}
	}
	if digits == 0 {
		// no date or number; maybe yes/no
		if len(s) <= 12 {
			if _, ok := ParseBool(s); ok {
				c.Bools++
			}
		}
		return
	}
	c.addDate(s)
	if letters <= 6 && mayBeNumber(s) { // a currency code or symbol at most
		c.addNumber(s)
	}
	if len(s) == 1 {
		if _, ok := ParseBool(s); ok {
			c.Bools++
		}
	}
}

// addCommon counts the shapes most columns are made of without the general readers,
// which allocate and tokenize: whole numbers (IDs), plain decimals, ISO dates and words
// with a number glued on (First12), and e-mail addresses. It counts exactly what they would (TestAddCommonIsExact)
// and leaves everything else to them; it makes extraction's inference several times cheaper.
func (c *Column) addCommon(s string) bool {
	var letters, digits, dots, dashes, slashes, firstDigit int
	firstDigit = -1
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			if firstDigit < 0 {
				firstDigit = i
			}
			digits++
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z':
			if firstDigit >= 0 {
				return false // letters after digits: 23rd, 10am, 1e5
			}
			letters++
		case b == '.':
			dots++
		case b == '-':
			dashes++
		case b == '/':
			slashes++
		case b == '@':
			return true // an e-mail address: neither a date nor a number (as addGeneral)
		default:
			return false
		}
	}
	switch {
	case letters >= 4 && digits > 0 && dots+dashes+slashes == 0:
		// a word with a number glued on is neither a date (a month name needs two numbers)
		// nor a number (currency codes are at most three letters)
		return true
	case letters > 0:
		return false
	case digits == len(s) && len(s) <= 15 && len(s) != 8 && s[0] != '0':
		c.countSerialWhole(s)
		c.NumEither++
		if len(s) == 1 && (s == "0" || s == "1") {
			c.Bools++
		}
		return true
	case dots == 1 && dashes+slashes == 0 && s[0] != '.' && s[len(s)-1] != '.' && (s[0] != '0' || s[1] == '.'):
		dot := strings.IndexByte(s, '.')
		if frac := len(s) - dot - 1; frac == 3 && dot <= 3 {
			if s[0] == '0' {
				return false
			}
			// 412.345 reads differently with a decimal comma (412345): ambiguous
			c.countSerialWhole(s[:dot])
			c.NumAmbiguous++
			setOnce(&c.NumAmbExample, s)
			return true
		}
		c.countSerialWhole(s[:dot])
		c.NumPoint++
		setOnce(&c.NumExample, s)
		return true
	case s[0] == '-' && dashes == 1 && dots+slashes == 0 && digits > 0 && digits <= 15 && digits != 8:
		// -123: a number read alike either way; no date (a serial date is never negative)
		c.NumEither++
		return true
	case s[0] == '-' && dashes == 1 && dots == 1 && slashes == 0 && s[1] != '.' && s[len(s)-1] != '.' && len(s)-strings.IndexByte(s, '.')-1 != 3:
		// -12.50: a decimal point; two numbers are no date
		c.NumPoint++
		setOnce(&c.NumExample, s)
		return true
	case len(s) == 10 && digits == 8 && dashes == 2 && s[4] == '-' && s[7] == '-':
		if !valid(atoi(s[:4]), atoi(s[5:7]), atoi(s[8:])) {
			return false
		}
		c.countDate(dateReading{ok: true}, s) // one reading: the order is fixed
		return true
	case slashes+dots+dashes == 2 && len(s) >= 8 && len(s) <= 10:
		return c.addDayMonth(s)
	}
	return false
}

// addDayMonth counts 23/08/1984, 8/23/1984, 05.08.1963 and 5-8-1963: day and month in
// either order with a four-digit year, the separator the same twice.
func (c *Column) addDayMonth(s string) bool {
	i := strings.IndexAny(s, "/.-")
	if i < 1 || i > 2 {
		return false
	}
	j := i + 1 + strings.IndexByte(s[i+1:], s[i])
	if j <= i+1 || j > i+3 || len(s)-j-1 != 4 {
		return false
	}
	a, b, y := atoi(s[:i]), atoi(s[i+1:j]), atoi(s[j+1:])
	d := dateReading{d: a, alt: [3]int{y, a, b}}
	if valid(y, b, a) {
		d.orders |= dmyBit
	}
	if valid(y, a, b) {
		d.orders |= mdyBit
	}
	if d.orders == 0 {
		return false
	}
	d.ok = true
	c.countDate(d, s)
	return true
}

// countSerialWhole is countSerial for a plain number whose whole part is digits, without a
// leading zero: it is in Excel's range when that part is from 1 to 2958465 (the fraction
// never takes it past a bound). No float parsing: inference reads every value.
func (c *Column) countSerialWhole(digits string) {
	if n := len(digits); n > 0 && n <= 7 {
		if v := atoi(digits); v >= 1 && v < 2958466 {
			c.DateSerial++
		}
	}
}

// trimSpace is strings.TrimSpace, returning at once for the usual value that starts and
// ends with a visible ASCII character.
func trimSpace(s string) string {
	if n := len(s); n > 0 && s[0] > ' ' && s[0] < 0x80 && s[n-1] > ' ' && s[n-1] < 0x80 {
		return s
	}
	return strings.TrimSpace(s)
}

// countSerial counts a plain number as an Excel serial date when it is in Excel's range.
func (c *Column) countSerial(s string) {
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 1 && v < 2958466 {
		c.DateSerial++
	}
}

func (c *Column) addDate(s string) {
	if isNumber(s) && !(len(s) == 8 && allDigits(s)) {
		// readDate reads a plain number as an Excel serial date or not at all: only whether
		// it does counts here, not the date and time it makes of it (issue 17: 0.3 µs a
		// value of a column of decimals, most of it writing the time)
		c.countSerial(s)
		return
	}
	c.countDate(readDate(s), s)
}

// countDate counts one date reading of s by the orders that read it.
func (c *Column) countDate(d dateReading, s string) {
	switch {
	case !d.ok:
	case d.serial:
		c.DateSerial++
	case d.orders == dmyBit:
		c.DateOnlyDMY++
		setOnce(&c.DateExample, s)
	case d.orders == mdyBit:
		c.DateOnlyMDY++
		setOnce(&c.DateExample, s)
	case d.orders == dmyBit|mdyBit && d.d != d.alt[2]:
		c.DateEither++
		setOnce(&c.AmbExample, s)
	default:
		c.DateFixed++
		setOnce(&c.DateExample, s)
	}
}

// mayBeNumber is false for text with a digit before a "(" or after a ")", which readNumber
// does not read (a phone number: +1 (555) 123-4567): it strips parentheses only around the
// whole number, and never a digit.
func mayBeNumber(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c == '(' && digit:
			return false
		case c == ')':
			if strings.ContainsAny(s[i:], "0123456789") {
				return false
			}
		}
	}
	return true
}

func (c *Column) addNumber(s string) {
	n := readNumber(s)
	switch {
	case n.point != "" && n.comma != "":
		if n.point == n.comma {
			c.NumEither++
		} else {
			c.NumAmbiguous++
			setOnce(&c.NumAmbExample, s)
		}
	case n.point != "":
		c.NumPoint++
		if strings.ContainsAny(s, ".,") {
			setOnce(&c.NumExample, s)
		}
	case n.comma != "":
		c.NumComma++
		setOnce(&c.NumExample, s)
	}
}

func setOnce(dst *string, s string) {
	if *dst == "" {
		*dst = s
	}
}

// Reading is the inferred format of a column for a field type, as the wizard shows it.
type Reading struct {
	Kind      string `json:"kind"`              // date, number or boolean
	Format    string `json:"format"`            // DMY, MDY, YMD, serial; "." or ","; "yes/no"
	Proof     int    `json:"proof"`             // values that can only be read this way
	Against   int    `json:"against"`           // values that can only be read the other way (they will fail)
	Ambiguous bool   `json:"ambiguous"`         // no value decides: the user must confirm
	Readable  int    `json:"readable"`          // values this reading reads
	Values    int    `json:"values"`            // non-empty values
	Example   string `json:"example,omitempty"` // a value as written
}

// Date is the column's reading as dates: the order its values prove, or ambiguous when
// every value reads both ways (05/08/1963), or when values prove both orders (the minority
// then fail).
func (c *Column) Date() Reading {
	r := Reading{Kind: "date", Values: c.Values, Example: c.DateExample}
	if r.Example == "" {
		r.Example = c.AmbExample
	}
	switch {
	case c.DateSerial > 0 && c.DateSerial >= c.Values-c.DateFixed && c.DateOnlyDMY+c.DateOnlyMDY+c.DateEither == 0:
		r.Format, r.Readable = "serial", c.DateSerial+c.DateFixed
	case c.DateOnlyMDY > c.DateOnlyDMY:
		r.Format, r.Proof, r.Against = MDY, c.DateOnlyMDY, c.DateOnlyDMY
	case c.DateOnlyDMY > 0:
		r.Format, r.Proof, r.Against = DMY, c.DateOnlyDMY, c.DateOnlyMDY
	case c.DateEither > 0:
		r.Format, r.Ambiguous = DMY, true
	default:
		r.Format = YMD
	}
	if r.Format != "serial" {
		r.Readable = r.Proof + c.DateEither + c.DateFixed
	}
	if r.Against > 0 {
		r.Ambiguous = true // values disagree: the user decides which reading wins
	}
	if r.Ambiguous && r.Against == 0 && c.AmbExample != "" {
		r.Example = c.AmbExample // show a value that needs the choice
	}
	return r
}

// Number is the column's reading as numbers: the decimal separator its values prove.
func (c *Column) Number() Reading {
	r := Reading{Kind: "number", Values: c.Values, Example: c.NumExample}
	if r.Example == "" {
		r.Example = c.NumAmbExample
	}
	switch {
	case c.NumComma > c.NumPoint:
		r.Format, r.Proof, r.Against = Comma, c.NumComma, c.NumPoint
	case c.NumPoint > 0:
		r.Format, r.Proof, r.Against = Point, c.NumPoint, c.NumComma
	case c.NumAmbiguous > 0:
		r.Format, r.Ambiguous = Point, true
	default:
		r.Format = Point
	}
	r.Readable = r.Proof + c.NumEither + c.NumAmbiguous
	if r.Against > 0 {
		r.Ambiguous = true
	}
	return r
}

// Boolean is the column's reading as yes/no values.
func (c *Column) Boolean() Reading {
	return Reading{Kind: "boolean", Format: "yes/no", Readable: c.Bools, Values: c.Values, Proof: c.Bools}
}

// Readings are the column's readings that read at least one of its values, dates first:
// what an agent sees of a column before it is mapped.
func (c *Column) Readings() []Reading {
	out := []Reading{}
	for _, r := range []Reading{c.Date(), c.Number(), c.Boolean()} {
		if r.Readable > 0 || r.Against > 0 {
			out = append(out, r)
		}
	}
	return out
}

// For returns the reading for a field type, and false for types read as they are.
func (c *Column) For(fieldType string) (Reading, bool) {
	switch fieldType {
	case "date":
		return c.Date(), true
	case "number":
		return c.Number(), true
	case "boolean":
		return c.Boolean(), true
	}
	return Reading{}, false
}

// Normalize reads s for a field of type fieldType in format (a Reading's Format; "" reads
// only what needs no choice) and returns its stored form: an ISO date, a JSON number or a
// JSON boolean. ok is false when s cannot be read that way.
func Normalize(s, fieldType, format string) (string, bool) {
	switch fieldType {
	case "date":
		d := readDate(s)
		if d.serial != (format == "serial") && !(format == "serial" && d.ok && d.orders == 0) {
			return "", false // a bare number is a date only in a column of serials
		}
		return d.iso(format)
	case "number":
		return ParseNumber(s, format)
	case "boolean":
		if v, ok := ParseBool(s); ok {
			if v {
				return "true", true
			}
			return "false", true
		}
	}
	return "", false
}

// Expected is the error a value that cannot be read in format gets.
func Expected(fieldType, format string) string {
	switch fieldType {
	case "date":
		switch format {
		case DMY:
			return "Expected a date as day/month/year, e.g. 23/08/1984"
		case MDY:
			return "Expected a date as month/day/year, e.g. 08/23/1984"
		case "serial":
			return "Expected an Excel date serial number, e.g. 30917"
		}
		return "Expected a date such as 1984-08-23; 05/08/1963 could be 5 August or 8 May: write it as YYYY-MM-DD or set the field's date format"
	case "number":
		switch format {
		case Comma:
			return "Expected a number with a decimal comma, e.g. 1.234,56"
		case Point:
			return "Expected a number with a decimal point, e.g. 1,234.56"
		}
		return "Value must be a number"
	case "boolean":
		return "Value must be true or false (yes/no)"
	}
	return ""
}
