package jobs

import (
	"context"
	"encoding/json"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// Resolver finds what an id names; the store provides it.
type Resolver interface {
	ResolveResource(ctx context.Context, accountID, key, id string) (*store.Resource, error)
}

// namedIDs returns the ids a job names beyond its source, by the key that names them: its
// destination and the sheets of its config (a map job's source and destination sheets, a
// delete-records job's sheet).
func namedIDs(j *model.Job) map[string]string {
	out := map[string]string{}
	if j.Destination != "" && store.KindOf(j.Destination) != "" {
		out["destination"] = j.Destination
	}
	var c struct {
		SourceSheetID      string `json:"sourceSheetId"`
		DestinationSheetID string `json:"destinationSheetId"`
		Sheet              string `json:"sheet"`
	}
	if len(j.Config) > 0 && json.Unmarshal(j.Config, &c) == nil {
		for key, id := range map[string]string{"config.sourceSheetId": c.SourceSheetID, "config.destinationSheetId": c.DestinationSheetID, "config.sheet": c.Sheet} {
			if id != "" {
				out[key] = id
			}
		}
	}
	return out
}

// CheckScope makes sure every id a job names lies within the job's own scope: its
// environment and, for a job that belongs to a space (its source is in one), that space. A
// job acts with the reach of what it belongs to, never beyond it: whoever may create or
// change a job in a space (a space token, a guest) cannot aim it at another space's data.
// The API checks the job itself against the requester's reach (auth.Can); built-in jobs call
// this again before they act. Errors: not_found about the key naming an id out of scope.
func CheckScope(ctx context.Context, db Resolver, j *model.Job) error {
	for key, id := range namedIDs(j) {
		r, err := db.ResolveResource(ctx, j.AccountID, key, id)
		if err != nil {
			return err
		}
		if !r.In(j.EnvironmentID, j.SpaceID) {
			return errs.NotFoundf(key, "%s not found in the job's space", id)
		}
		if (key == "config.sheet" || key == "config.sourceSheetId" || key == "config.destinationSheetId") && r.Kind != store.KindSheet {
			return errs.NotFoundf(key, "Sheet %s not found", id)
		}
	}
	return nil
}
