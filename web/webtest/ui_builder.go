package webtest

import (
	"net/url"
	"strconv"
)

// BuilderForm is the sheet builder's form as a browser posts it: rows of label, key, type,
// options and the required box.
func BuilderForm(csrf, op string, rows [][5]string, extra url.Values) url.Values {
	v := url.Values{"_csrf": {csrf}, "op": {op}, "n": {Itoa(len(rows))}}
	for i, r := range rows {
		s := Itoa(i)
		v.Set("label"+s, r[0])
		v.Set("key"+s, r[1])
		v.Set("type"+s, r[2])
		v.Set("options"+s, r[3])
		if r[4] == "required" {
			v.Set("required"+s, "on")
		}
		v.Set("orig"+s, "")
	}
	for k, vs := range extra {
		v[k] = vs
	}
	return v
}

func Itoa(i int) string { return strconv.Itoa(i) }
