package views

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
