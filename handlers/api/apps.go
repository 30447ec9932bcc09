package api

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
)

// AppStore is what the app handlers need.
type AppStore interface {
	SaveApp(ctx context.Context, a *store.App) error
	GetApp(ctx context.Context, accountID, id string) (*store.App, error)
	ListApps(ctx context.Context, accountID string) ([]*store.App, error)
	DeleteApp(ctx context.Context, accountID, id string) error
	SaveConstraint(ctx context.Context, k *store.Constraint) error
	GetConstraint(ctx context.Context, appID, id string) (*store.Constraint, error)
	ListConstraints(ctx context.Context, appID string) ([]*store.Constraint, error)
	ConstraintVersions(ctx context.Context, k *store.Constraint, version int) ([]*store.Constraint, error)
	DeleteConstraint(ctx context.Context, appID, id string) error
}

// Apps serves /v1/apps and their constraints. Apps belong to the account; secret keys,
// users' tokens and personal access tokens manage them, guests and space tokens do not.
type Apps struct{ store AppStore }

// NewApps returns the app handlers.
func NewApps(s AppStore) *Apps { return &Apps{store: s} }

var appTypes = []string{"PORTAL", "PROJECTS", "MAPPING", "WORKBOOKS", "CUSTOM"}

type appJSON struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	Namespace          string          `json:"namespace"`
	Type               string          `json:"type"`
	Entity             string          `json:"entity"`
	EntityPlural       string          `json:"entityPlural"`
	Icon               string          `json:"icon,omitempty"`
	Metadata           json.RawMessage `json:"metadata,omitempty"`
	EnvironmentFilters json.RawMessage `json:"environmentFilters,omitempty"`
	Blueprint          json.RawMessage `json:"blueprint,omitempty"`
	CreatedAt          Time            `json:"createdAt"`
	UpdatedAt          Time            `json:"updatedAt"`
	ActivatedAt        *Time           `json:"activatedAt,omitempty"`
}

func toAppJSON(a *store.App) appJSON {
	return appJSON{ID: a.ID, Name: a.Name, Namespace: a.Namespace, Type: a.Type, Entity: a.Entity, EntityPlural: a.EntityPlural, Icon: a.Icon,
		Metadata: a.Metadata, EnvironmentFilters: a.EnvironmentFilters, Blueprint: a.Blueprint, CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt),
		ActivatedAt: wireTime(a.ActivatedAt)}
}

type appIn struct {
	Name               *string         `json:"name"`
	Namespace          *string         `json:"namespace"`
	Type               *string         `json:"type"`
	Entity             *string         `json:"entity"`
	EntityPlural       *string         `json:"entityPlural"`
	Icon               *string         `json:"icon"`
	Metadata           json.RawMessage `json:"metadata"`
	EnvironmentFilters json.RawMessage `json:"environmentFilters"`
	Blueprint          json.RawMessage `json:"blueprint"`
	ActivatedAt        OptTime         `json:"activatedAt"`
}

// apply merges a request into an app and checks the result.
func (in *appIn) apply(a *store.App) error {
	for dst, v := range map[*string]*string{&a.Name: in.Name, &a.Namespace: in.Namespace, &a.Entity: in.Entity, &a.EntityPlural: in.EntityPlural, &a.Icon: in.Icon} {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	for key, raw := range map[string]json.RawMessage{"metadata": in.Metadata, "environmentFilters": in.EnvironmentFilters, "blueprint": in.Blueprint} {
		if err := rawObject(key, raw); err != nil {
			return err
		}
	}
	if in.Metadata != nil {
		a.Metadata = in.Metadata
	}
	if in.EnvironmentFilters != nil {
		a.EnvironmentFilters = in.EnvironmentFilters
	}
	if in.Blueprint != nil {
		a.Blueprint = in.Blueprint
	}
	if in.ActivatedAt.Set {
		a.ActivatedAt = in.ActivatedAt.Value
	}
	switch {
	case a.Name == "":
		return errs.Invalidf("name", "An app needs a name")
	case a.Namespace == "":
		return errs.Invalidf("namespace", "An app needs a namespace")
	case !slices.Contains(appTypes, a.Type):
		return errs.Invalidf("type", "type must be one of %s", strings.Join(appTypes, ", "))
	}
	if a.Entity == "" {
		a.Entity = "Record"
	}
	if a.EntityPlural == "" {
		a.EntityPlural = a.Entity + "s"
	}
	return nil
}

// Create handles POST /v1/apps {name, namespace, type, entity?, entityPlural?, icon?,
// metadata?, environmentFilters?, blueprint?}.
func (h *Apps) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in appIn
	if err := bind(c, &in); err != nil {
		return err
	}
	a := &store.App{AccountID: p.AccountID}
	if in.Type != nil {
		a.Type = strings.ToUpper(*in.Type)
	}
	if err := in.apply(a); err != nil {
		return err
	}
	if len(in.EnvironmentFilters) == 0 && p.EnvironmentID != "" {
		// A key or environment user makes apps of its own environment.
		a.EnvironmentFilters, _ = json.Marshal(map[string][]string{"environmentIds": {p.EnvironmentID}})
	}
	if err := may(c, auth.Write, place.Of(a)); err != nil { // and of no other
		return err
	}
	if err := h.store.SaveApp(ctxOf(c), a); err != nil {
		return err
	}
	return data(c, toAppJSON(a))
}

// List handles GET /v1/apps.
func (h *Apps) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	list, err := h.store.ListApps(ctxOf(c), p.AccountID)
	if err != nil {
		return err
	}
	out := make([]appJSON, 0, len(list))
	for _, a := range list {
		if may(c, auth.Read, place.Of(a)) == nil {
			out = append(out, toAppJSON(a))
		}
	}
	return data(c, out)
}

func (h *Apps) app(c *fiber.Ctx) (*auth.Principal, *store.App, error) {
	a, err := inReach(c, verbOf(c), h.store.GetApp, c.Params("appId"))
	return PrincipalOf(c), a, err
}

// Get handles GET /v1/apps/:appId.
func (h *Apps) Get(c *fiber.Ctx) error {
	_, a, err := h.app(c)
	if err != nil {
		return err
	}
	return data(c, toAppJSON(a))
}

// Update handles PATCH /v1/apps/:appId (the type is fixed once created).
func (h *Apps) Update(c *fiber.Ctx) error {
	_, a, err := h.app(c)
	if err != nil {
		return err
	}
	var in appIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Type != nil && strings.ToUpper(*in.Type) != a.Type {
		return errs.Invalidf("type", "An app's type cannot change; create another app")
	}
	if err := in.apply(a); err != nil {
		return err
	}
	if err := may(c, auth.Write, place.Of(a)); err != nil { // nor widen one beyond it
		return err
	}
	if err := h.store.SaveApp(ctxOf(c), a); err != nil {
		return err
	}
	return data(c, toAppJSON(a))
}

// Delete handles DELETE /v1/apps/:appId.
func (h *Apps) Delete(c *fiber.Ctx) error {
	p, a, err := h.app(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteApp(ctxOf(c), p.AccountID, a.ID); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true}) // the client's SuccessResponse, not the usual {data: {success}}
}

type constraintJSON struct {
	ID          string          `json:"id"`
	AppID       string          `json:"appId"`
	Validator   string          `json:"validator"`
	Description string          `json:"description,omitempty"`
	Function    string          `json:"function,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`
	Label       string          `json:"label,omitempty"`
	CreatedAt   Time            `json:"createdAt"`
	UpdatedAt   Time            `json:"updatedAt"`
	Version     *int            `json:"version,omitempty"`
}

func toConstraintJSON(k *store.Constraint, withVersion bool) constraintJSON {
	out := constraintJSON{ID: k.ID, AppID: k.AppID, Validator: k.Validator, Description: k.Description, Function: k.Function, Options: k.Options,
		Label: k.Label, CreatedAt: Time(k.CreatedAt), UpdatedAt: Time(k.UpdatedAt)}
	if withVersion {
		v := k.Version
		out.Version = &v
	}
	return out
}

type constraintIn struct {
	Description *string         `json:"description"`
	Function    *string         `json:"function"`
	Options     json.RawMessage `json:"options"`
	Label       *string         `json:"label"`
	Validator   *string         `json:"validator"`
	AppID       *string         `json:"appId"`
}

func (in *constraintIn) apply(k *store.Constraint) {
	for dst, v := range map[*string]*string{&k.Description: in.Description, &k.Function: in.Function, &k.Label: in.Label} {
		if v != nil {
			*dst = *v
		}
	}
	if in.Options != nil {
		k.Options = in.Options
	}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// builtinConstraints are the field constraints every sheet has, listed with includeBuiltins.
var builtinConstraints = []store.Constraint{
	{ID: "builtin_required", Validator: "required", Label: "Required", Description: "The field must have a value."},
	{ID: "builtin_unique", Validator: "unique", Label: "Unique", Description: "No two records share the field's value (options: caseSensitive, ignoreEmpty)."},
	{ID: "builtin_computed", Validator: "computed", Label: "Computed", Description: "The value is set by the system; people cannot edit it."},
	{ID: "builtin_external", Validator: "external", Label: "External", Description: "A validator run by an agent (options: validator name)."},
	{ID: "builtin_stored", Validator: "stored", Label: "Stored", Description: "A stored constraint of an app, named by validator."},
}

// Constraints handles GET /v1/apps/:appId/constraints?includeBuiltins=.
func (h *Apps) Constraints(c *fiber.Ctx) error {
	_, a, err := h.app(c)
	if err != nil {
		return err
	}
	builtins, err := queryBool(c, "includeBuiltins")
	if err != nil {
		return err
	}
	list, err := h.store.ListConstraints(ctxOf(c), a.ID)
	if err != nil {
		return err
	}
	out := []constraintJSON{}
	if builtins != nil && *builtins {
		for _, b := range builtinConstraints {
			b.AppID, b.CreatedAt, b.UpdatedAt = a.ID, a.CreatedAt, a.CreatedAt
			out = append(out, toConstraintJSON(&b, false))
		}
	}
	for _, k := range list {
		out = append(out, toConstraintJSON(k, false))
	}
	return data(c, out)
}

// CreateConstraint handles POST /v1/apps/:appId/constraints {validator?, label?,
// description?, function?, options?}; without validator it is named after the label.
func (h *Apps) CreateConstraint(c *fiber.Ctx) error {
	_, a, err := h.app(c)
	if err != nil {
		return err
	}
	var in constraintIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.AppID != nil && *in.AppID != "" && *in.AppID != a.ID {
		return errs.Invalidf("appId", "appId %s does not match the app in the path", *in.AppID)
	}
	k := &store.Constraint{AppID: a.ID}
	in.apply(k)
	if in.Validator != nil {
		k.Validator = strings.TrimSpace(*in.Validator)
	}
	if k.Validator == "" {
		k.Validator = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(k.Label), "_"), "_")
	}
	if k.Validator == "" {
		list, err := h.store.ListConstraints(ctxOf(c), a.ID)
		if err != nil {
			return err
		}
		k.Validator = "constraint_" + strconv.Itoa(len(list)+1)
	}
	if err := h.store.SaveConstraint(ctxOf(c), k); err != nil {
		return err
	}
	return data(c, toConstraintJSON(k, false))
}

func (h *Apps) constraint(c *fiber.Ctx) (*store.Constraint, error) {
	_, a, err := h.app(c)
	if err != nil {
		return nil, err
	}
	return h.store.GetConstraint(ctxOf(c), a.ID, c.Params("constraintId"))
}

// Constraint handles GET /v1/apps/:appId/constraints/:constraintId.
func (h *Apps) Constraint(c *fiber.Ctx) error {
	k, err := h.constraint(c)
	if err != nil {
		return err
	}
	return data(c, toConstraintJSON(k, false))
}

// UpdateConstraint handles PATCH /v1/apps/:appId/constraints/:constraintId {label?,
// description?, function?, options?}: each change is a new version; the validator stays.
func (h *Apps) UpdateConstraint(c *fiber.Ctx) error {
	k, err := h.constraint(c)
	if err != nil {
		return err
	}
	var in constraintIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Validator != nil && *in.Validator != k.Validator {
		return errs.Invalidf("validator", "A constraint's validator cannot change; create another constraint")
	}
	in.apply(k)
	if err := h.store.SaveConstraint(ctxOf(c), k); err != nil {
		return err
	}
	return data(c, toConstraintJSON(k, false))
}

// ConstraintVersions handles GET /v1/apps/:appId/constraints/:constraintId/versions.
func (h *Apps) ConstraintVersions(c *fiber.Ctx) error {
	k, err := h.constraint(c)
	if err != nil {
		return err
	}
	list, err := h.store.ConstraintVersions(ctxOf(c), k, 0)
	if err != nil {
		return err
	}
	out := make([]constraintJSON, len(list))
	for i, v := range list {
		out[i] = toConstraintJSON(v, true)
	}
	return data(c, out)
}

// ConstraintVersion handles GET /v1/apps/:appId/constraints/:constraintId/versions/:version.
func (h *Apps) ConstraintVersion(c *fiber.Ctx) error {
	k, err := h.constraint(c)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(c.Params("version"))
	if err != nil || v < 1 {
		return errs.Invalidf("version", "version must be a positive whole number")
	}
	list, err := h.store.ConstraintVersions(ctxOf(c), k, v)
	if err != nil {
		return err
	}
	return data(c, toConstraintJSON(list[0], true))
}

// DeleteConstraint handles DELETE /v1/apps/:appId/constraints/:constraintId.
func (h *Apps) DeleteConstraint(c *fiber.Ctx) error {
	k, err := h.constraint(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteConstraint(ctxOf(c), k.AppID, k.ID); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"success": true})
}
