package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// Every handler loads the resources a request names through inReach (or asks may for one it
// placed itself), and both ask the one resource policy, auth.Can. No handler compares scopes
// on its own.

// inReach loads the resource id names with get and returns it when the request's principal
// may do v on it; otherwise not found (out of scope) or forbidden (in scope, not for this
// kind of credential).
func inReach[T any](c *fiber.Ctx, v auth.Verb, get func(context.Context, string, string) (T, error), id string) (T, error) {
	p := PrincipalOf(c)
	t, err := get(ctxOf(c), p.AccountID, id)
	if err != nil {
		return t, err
	}
	if err := auth.Can(p, v, place.Of(t)); err != nil {
		var zero T
		return zero, err
	}
	return t, nil
}

// may asks the resource policy whether the request may do v on r.
func may(c *fiber.Ctx, v auth.Verb, r auth.Resource) error { return auth.Can(PrincipalOf(c), v, r) }

// verbOf is the verb of a request on the resource its path names: reading for GET, writing
// for the rest. Handlers whose request manages the resource itself say auth.Manage.
func verbOf(c *fiber.Ctx) auth.Verb {
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		return auth.Read
	}
	return auth.Write
}

// sheetScope loads a live sheet's scope (its space, environment and account) for verb v.
func sheetScope(c *fiber.Ctx, s interface {
	RecordSheetScope(ctx context.Context, accountID, sheetID string) (*recordset.SheetScope, error)
}, v auth.Verb, sheetID string) (*recordset.SheetScope, error) {
	return inReach(c, v, s.RecordSheetScope, sheetID)
}

// spaceOf loads a space for verb v.
func spaceOf(c *fiber.Ctx, s interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
}, v auth.Verb, spaceID string) (*model.Space, error) {
	return inReach(c, v, s.GetSpace, spaceID)
}

// spaceContent loads a space whose content the request does v on (reads its documents, adds
// an action…).
func spaceContent(c *fiber.Ctx, s interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
}, v auth.Verb, spaceID string) (*model.Space, error) {
	sp, err := spaceOf(c, s, auth.Read, spaceID)
	if err != nil {
		return nil, err
	}
	return sp, may(c, v, place.Content(sp.AccountID, sp.EnvironmentID, sp.ID))
}

// listScope narrows a listing of resources of kind r to what the principal reaches: the
// environment and space asked for, checked, or the principal's own. A space-bound principal
// lists only its own space, and only kinds the policy lets it read.
func listScope(c *fiber.Ctx, r auth.Res, envID, spaceID string) (string, string, error) {
	p := PrincipalOf(c)
	env, err := environmentScope(p, envID)
	if err != nil {
		return "", "", err
	}
	if p.SpaceID != "" {
		if spaceID != "" && spaceID != p.SpaceID {
			return "", "", forbidden("This token cannot reach space %s", spaceID)
		}
		spaceID = p.SpaceID
	}
	if c := auth.ClassOf(p); !auth.Allowed(r, auth.Read, c) {
		return "", "", forbidden("A %s may not list these (%s)", c, r)
	}
	return env, spaceID, nil
}
