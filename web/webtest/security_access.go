package webtest

import (
	"net/http"
)

func Refused(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}
