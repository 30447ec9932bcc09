package webtest

import (
	"regexp"
)

var (
	InlineScript  = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>`)
	InlineHandler = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	HtmxOn        = regexp.MustCompile(`(?i)\shx-on`)
	EvalFilter    = regexp.MustCompile(`hx-trigger="[^"]*\[`)
)
