package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// ActionStore is what the action handlers need from the store.
type ActionStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	ResolveResource(ctx context.Context, accountID, key, id string) (*store.Resource, error)
	CreateActions(ctx context.Context, list []*model.Action, actor string) error
	GetAction(ctx context.Context, accountID, id string) (*model.Action, error)
	ListActions(ctx context.Context, accountID, spaceID string) ([]*model.Action, error)
	UpdateAction(ctx context.Context, accountID, id, actor string, change func(a *model.Action) error) (*model.Action, error)
	DeleteAction(ctx context.Context, accountID, id, actor string) error
}

// ActionRunner creates the job that runs an action.
type ActionRunner interface {
	RunAction(ctx context.Context, a *model.Action, input json.RawMessage, actor string) (*model.Job, error)
}

// Actions serves /v1/actions.
type Actions struct {
	store  ActionStore
	runner ActionRunner
}

// NewActions returns the action handlers.
func NewActions(s ActionStore, r ActionRunner) *Actions { return &Actions{store: s, runner: r} }

// actionJSON is Flatfile's ApiAction: the Action plus id, targetId and times.
type actionJSON struct {
	model.ActionConfig
	ID        string `json:"id"`
	TargetID  string `json:"targetId"`
	CreatedAt Time   `json:"createdAt"`
	UpdatedAt Time   `json:"updatedAt"`
}

func toActionJSON(a *model.Action) actionJSON {
	return actionJSON{ActionConfig: a.Config, ID: a.ID, TargetID: a.TargetID, CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt)}
}

// actionIn is Flatfile's ApiActionConfig: an Action plus the id of what it is mounted on.
type actionIn struct {
	model.ActionConfig
	TargetID string `json:"targetId"`
}

// bindAction is bind for bodies holding actionIn: type errors inside the embedded config
// name the field as the client sent it.
func bindAction(c *fiber.Ctx, dst any) error {
	err := bind(c, dst)
	var e *errs.Error
	if errors.As(err, &e) {
		e.Key = strings.TrimPrefix(e.Key, "ActionConfig.")
		e.Message = strings.ReplaceAll(e.Message, "ActionConfig.", "")
	}
	return err
}

// space loads the spaceId query parameter's space; out of reach is not found.
func (h *Actions) space(c *fiber.Ctx) (*auth.Principal, *model.Space, error) {
	p := PrincipalOf(c)
	id := c.Query("spaceId")
	if id == "" {
		return nil, nil, errs.Invalidf("spaceId", "Query parameter spaceId is required")
	}
	s, err := spaceContent(c, h.store, verbOf(c), id)
	return p, s, err
}

// build validates one ApiActionConfig for space s and returns the action to store.
func (h *Actions) build(c *fiber.Ctx, s *model.Space, in *actionIn) (*model.Action, error) {
	if err := jobs.CheckAction(&in.ActionConfig); err != nil {
		return nil, err
	}
	if in.TargetID == "" {
		return nil, errs.Invalidf("targetId", "targetId is required: the workbook, sheet, file, document or space the action is mounted on")
	}
	kind := store.KindOf(in.TargetID)
	if kind == "" {
		return nil, errs.Invalidf("targetId", "targetId must name a workbook, sheet, file, document or space, got %q", in.TargetID)
	}
	r, err := h.store.ResolveResource(ctxOf(c), s.AccountID, "targetId", in.TargetID)
	if err != nil {
		return nil, err
	}
	if r.SpaceID != s.ID {
		return nil, errs.NotFoundf("targetId", "%s is not in space %s", in.TargetID, s.ID)
	}
	return &model.Action{AccountID: s.AccountID, EnvironmentID: s.EnvironmentID, SpaceID: s.ID, TargetID: in.TargetID, TargetType: kind,
		WorkbookID: r.WorkbookID, Config: in.ActionConfig}, nil
}

// Create handles POST /v1/actions?spaceId=.
func (h *Actions) Create(c *fiber.Ctx) error {
	p, s, err := h.space(c)
	if err != nil {
		return err
	}
	var in actionIn
	if err := bindAction(c, &in); err != nil {
		return err
	}
	a, err := h.build(c, s, &in)
	if err != nil {
		return err
	}
	if err := h.store.CreateActions(ctxOf(c), []*model.Action{a}, p.ActorID); err != nil {
		return err
	}
	return data(c, toActionJSON(a))
}

// BulkCreate handles POST /v1/actions/bulk?spaceId=; the answer is a bare array, as Flatfile's.
func (h *Actions) BulkCreate(c *fiber.Ctx) error {
	p, s, err := h.space(c)
	if err != nil {
		return err
	}
	var in []actionIn
	if err := bindAction(c, &in); err != nil {
		return err
	}
	list := make([]*model.Action, 0, len(in))
	for i := range in {
		a, err := h.build(c, s, &in[i])
		if err != nil {
			var e *errs.Error
			if errors.As(err, &e) {
				e.Key = fmt.Sprintf("[%d].%s", i, e.Key)
			}
			return err
		}
		list = append(list, a)
	}
	if err := h.store.CreateActions(ctxOf(c), list, p.ActorID); err != nil {
		return err
	}
	return c.JSON(actionList(list))
}

func actionList(list []*model.Action) []actionJSON {
	out := make([]actionJSON, 0, len(list))
	for _, a := range list {
		out = append(out, toActionJSON(a))
	}
	return out
}

// List handles GET /v1/actions?spaceId=; the answer is a bare array, as Flatfile's.
func (h *Actions) List(c *fiber.Ctx) error {
	p, s, err := h.space(c)
	if err != nil {
		return err
	}
	list, err := h.store.ListActions(ctxOf(c), p.AccountID, s.ID)
	if err != nil {
		return err
	}
	return c.JSON(actionList(list))
}

// action loads the path's action; actions out of reach are not found.
func (h *Actions) action(c *fiber.Ctx) (*auth.Principal, *model.Action, error) {
	a, err := inReach(c, verbOf(c), h.store.GetAction, c.Params("actionId"))
	return PrincipalOf(c), a, err
}

// Get handles GET /v1/actions/:actionId.
func (h *Actions) Get(c *fiber.Ctx) error {
	_, a, err := h.action(c)
	if err != nil {
		return err
	}
	return data(c, toActionJSON(a))
}

// Update handles PATCH /v1/actions/:actionId: the fields sent replace the stored ones (null
// removes one); the label may be left out.
func (h *Actions) Update(c *fiber.Ctx) error {
	p, a, err := h.action(c)
	if err != nil {
		return err
	}
	var patch map[string]json.RawMessage
	if err := bind(c, &patch); err != nil {
		return err
	}
	delete(patch, "targetId")
	a, err = h.store.UpdateAction(ctxOf(c), p.AccountID, a.ID, p.ActorID, func(a *model.Action) error {
		cur, _ := json.Marshal(a.Config)
		merged := map[string]json.RawMessage{}
		_ = json.Unmarshal(cur, &merged)
		for k, v := range patch {
			if string(v) == "null" {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
		b, _ := json.Marshal(merged)
		var cfg model.ActionConfig
		if err := bindBytes(b, &cfg); err != nil {
			return err
		}
		if err := jobs.CheckAction(&cfg); err != nil {
			return err
		}
		a.Config = cfg
		return nil
	})
	if err != nil {
		return err
	}
	return data(c, toActionJSON(a))
}

// bindBytes decodes JSON with bind's error messages.
func bindBytes(b []byte, dst any) error {
	if err := json.Unmarshal(b, dst); err != nil {
		return jsonError(err)
	}
	return nil
}

// Delete handles DELETE /v1/actions/:actionId.
func (h *Actions) Delete(c *fiber.Ctx) error {
	p, a, err := h.action(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteAction(ctxOf(c), p.AccountID, a.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Run handles POST /v1/actions/:actionId/run {input?} (Sluice's addition; Flatfile's UI does
// the same by creating the job): it creates the action's job and answers it.
func (h *Actions) Run(c *fiber.Ctx) error {
	p, a, err := h.action(c)
	if err != nil {
		return err
	}
	var in struct {
		Input json.RawMessage `json:"input"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	j, err := h.runner.RunAction(ctxOf(c), a, in.Input, p.ActorID)
	if err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}
