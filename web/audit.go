package web

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/handlers/ui"
	"github.com/sluice/sluice/store"
)

// sensitive names fields whose values never reach the audit trail.
var sensitive = regexp.MustCompile(`(?i)value|secret|password|passwd|token|key|credential|confirm|current|auth`)

// audited reports whether changes in area belong in the audit trail: everything
// administrative, not the data people import (that has its own event and commit history).
func audited(a auth.Area) bool {
	return a != auth.AreaSpaceData && a != auth.AreaSpaceCreate && a != auth.AreaDataClips
}

// auditor records administrative changes: actor, time, client address, the route
// and what it touched, with field names and harmless values but never a secret value.
type auditor struct{ db *store.DB }

// api records a state-changing /v1 request of area a, after it ran (its status included).
func (r auditor) api(a auth.Area) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
			return err
		}
		p := api.PrincipalOf(c)
		if p == nil {
			return err
		}
		env := p.EnvironmentID
		if env == "" {
			env = c.Query("environmentId", c.Params("environmentId"))
		}
		r.record(c, err, &store.AuditEntry{AccountID: p.AccountID, EnvironmentID: env, ActorID: p.ActorID, ActorKind: string(auth.ClassOf(p)),
			Area: string(a)}, jsonFields(c.Body()))
		return err
	}
}

// page records a form posted to an admin page (or the password change).
func (r auditor) page() fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		if c.Method() != fiber.MethodPost {
			return err
		}
		u, _ := c.Locals(ui.UserKey).(ui.SessionUser)
		if u.UserID == "" {
			return err
		}
		kind := string(auth.ClassAccountUser)
		if u.EnvironmentID != "" {
			kind = string(auth.ClassEnvUser)
		}
		area := "admin:" + strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(c.Path(), "/admin/"), "/account/"), "/", 2)[0]
		fields := map[string]any{}
		c.Request().PostArgs().VisitAll(func(k, v []byte) {
			if key := string(k); key != "_csrf" {
				fields[key] = string(v)
			}
		})
		r.record(c, err, &store.AuditEntry{AccountID: u.AccountID, EnvironmentID: c.FormValue("env"), ActorID: u.UserID, ActorKind: kind, Area: area}, fields)
		return err
	}
}

func (r auditor) record(c *fiber.Ctx, err error, e *store.AuditEntry, fields map[string]any) {
	status := c.Response().StatusCode()
	if err != nil {
		status = statusFor(asAppError(err)) // the error handler has not written it yet
	}
	e.Status, e.ClientAddr = status, c.IP()
	e.Action = c.Method() + " " + c.Route().Path
	var target []string
	for _, name := range c.Route().Params {
		target = append(target, name+"="+c.Params(name))
	}
	sort.Strings(target)
	e.Target = strings.Join(target, " ")
	b, _ := json.Marshal(redact(fields))
	e.Details = string(b)
	_ = r.db.AddAudit(c.Context(), e) // an audit failure must not undo the change; it is logged by the store
}

// jsonFields reads the top level of a JSON body (the first element of an array).
func jsonFields(body []byte) map[string]any {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	if list, ok := v.([]any); ok {
		out := map[string]any{"items": len(list)}
		if len(list) > 0 {
			if m, ok := list[0].(map[string]any); ok {
				for k, x := range m {
					out[k] = x
				}
			}
		}
		return out
	}
	m, _ := v.(map[string]any)
	return m
}

// redact keeps field names and short plain values; secret-looking fields say only that they
// were set, and nested values say only their size.
func redact(fields map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range fields {
		switch x := v.(type) {
		case nil:
			out[k] = nil
		case bool, float64:
			out[k] = x
		case string:
			if len(x) > 120 {
				x = x[:120] + "…"
			}
			out[k] = x
		case []any:
			out[k] = map[string]int{"items": len(x)}
		case map[string]any:
			out[k] = map[string]int{"fields": len(x)}
		default:
			out[k] = x
		}
		if sensitive.MatchString(k) && v != nil && v != "" {
			out[k] = "(set, not recorded)"
		}
	}
	return out
}
