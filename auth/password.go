package auth

import (
	_ "embed"
	"strings"
	"unicode/utf8"
)

// MinPassword is the shortest password anyone may choose.
const MinPassword = 10

//go:embed common_passwords.txt
var commonPasswordsText string

// commonPasswords holds the shipped list (lower case) for PasswordProblem.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(commonPasswordsText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[strings.ToLower(l)] = true
		}
	}
	return m
}()

// PasswordProblem returns the message id of what is wrong with a new password ("" when
// nothing): shorter than MinPassword characters, on the shipped list of common passwords
// (any case), or the account's own e-mail address.
func PasswordProblem(pw, email string) string {
	lower := strings.ToLower(pw)
	switch {
	case utf8.RuneCountInString(pw) < MinPassword:
		return "admin.password_short"
	case commonPasswords[lower], email != "" && (lower == strings.ToLower(email) || lower == strings.ToLower(strings.SplitN(email, "@", 2)[0])):
		return "password.common"
	case strings.Count(lower, lower[:1]) == len(lower):
		return "password.common" // one character repeated
	}
	return ""
}
