// Package place says where each kind of thing Sluice stores lives, for the resource policy
// (auth.Can): which kind of resource it is and whose scope (account, environment, space,
// sheet) it has. API handlers and dashboard pages place what they load through Of.
package place

import (
	"encoding/json"
	"fmt"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// Of says where a loaded thing lives: the one table of which kind of resource each type
// is and whose scope it has.
func Of(v any) auth.Resource {
	switch x := v.(type) {
	case *model.Space:
		return auth.Resource{Kind: auth.ResSpace, AccountID: x.AccountID, EnvironmentID: x.EnvironmentID, SpaceID: x.ID}
	case *recordset.SheetScope:
		return sheetResource(x)
	case *model.Workbook:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.File:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.Document:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.Action:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.Job:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.Event:
		return Content(x.Context.AccountID, x.Context.EnvironmentID, x.Context.SpaceID)
	case *store.DataClip:
		return Content(x.AccountID, x.EnvironmentID, x.SpaceID)
	case *model.MappingProgram:
		return EnvConfig(x.AccountID, x.EnvironmentID)
	case *store.Instruction:
		return EnvConfig(x.AccountID, x.EnvironmentID)
	case *model.Agent:
		return EnvConfig(x.AccountID, x.EnvironmentID)
	case *store.Secret:
		return EnvConfig(x.AccountID, x.EnvironmentID)
	case *store.Guest:
		return EnvConfig(x.AccountID, x.EnvironmentID)
	case *store.App:
		return auth.Resource{Kind: auth.ResApp, AccountID: x.AccountID, EnvironmentID: appEnvironment(x.EnvironmentFilters)}
	}
	panic(fmt.Sprintf("place.Of: %T has no place in the resource policy", v))
}

// Content places what a space holds.
func Content(accountID, envID, spaceID string) auth.Resource {
	return auth.Resource{Kind: auth.ResContent, AccountID: accountID, EnvironmentID: envID, SpaceID: spaceID}
}

// EnvConfig places an environment's configuration.
func EnvConfig(accountID, envID string) auth.Resource {
	return auth.Resource{Kind: auth.ResEnvConfig, AccountID: accountID, EnvironmentID: envID}
}

func sheetResource(x *recordset.SheetScope) auth.Resource {
	return auth.Resource{Kind: auth.ResSheet, AccountID: x.AccountID, EnvironmentID: x.EnvironmentID, SpaceID: x.SpaceID, SheetID: x.SheetID}
}

// appEnvironment is the one environment an app is limited to (environmentFilters
// {"environmentIds": [one]}), or "" when it may be used in several or all: such an app belongs
// to the account and only account users manage it.
func appEnvironment(filters json.RawMessage) string {
	var f struct {
		EnvironmentIDs []string `json:"environmentIds"`
	}
	if json.Unmarshal(filters, &f) == nil && len(f.EnvironmentIDs) == 1 {
		return f.EnvironmentIDs[0]
	}
	return ""
}

// Sheet places sheet sheetID of workbook w.
func Sheet(w *model.Workbook, sheetID string) auth.Resource {
	return auth.Resource{Kind: auth.ResSheet, AccountID: w.AccountID, EnvironmentID: w.EnvironmentID, SpaceID: w.SpaceID, SheetID: sheetID}
}
