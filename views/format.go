package views

import (
	"net/url"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// statusClass colours a file status badge.
func statusClass(status string) string {
	switch status {
	case "complete":
		return "bg-emerald-100 text-emerald-800"
	case "failed":
		return "bg-red-100 text-red-800"
	}
	return "bg-sky-100 text-sky-800"
}

// busy reports whether any file is still being extracted.
func busy(files []FileItem) bool {
	for _, f := range files {
		if f.Status != "complete" && f.Status != "failed" {
			return true
		}
	}
	return false
}

func urlQuery(s string) string { return url.QueryEscape(s) }
