package webtest

import (
	"regexp"
)

var ResetLink = regexp.MustCompile(`/password/reset/(pwr_[A-Za-z0-9]+)`)
