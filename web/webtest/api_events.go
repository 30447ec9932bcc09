package webtest

import (
	"testing"
)

func JwtFor(t *testing.T, e *Env) string {
	t.Helper()
	_, out := e.Call(t, "POST", "/api/v1/auth", "", map[string]any{"email": Email, "password": Password})
	return out["accessToken"].(string)
}
