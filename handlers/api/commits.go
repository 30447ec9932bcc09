package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// CommitStore is what the commit handlers need.
type CommitStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetCommit(ctx context.Context, id string) (*model.Commit, error)
	GetWorkbook(ctx context.Context, accountID, id string) (*model.Workbook, error)
	CompleteCommit(ctx context.Context, accountID, id, actor string) (*model.Commit, error)
	ReplayCommit(ctx context.Context, accountID, id, actor string) error
}

// Commits serves /v1/commits.
type Commits struct{ store CommitStore }

// NewCommits returns the commit handlers.
func NewCommits(s CommitStore) *Commits { return &Commits{store: s} }

func (h *Commits) commit(c *fiber.Ctx) (*model.Commit, error) {
	p := PrincipalOf(c)
	cm, err := h.store.GetCommit(ctxOf(c), c.Params("commitId"))
	if err != nil {
		return nil, err
	}
	w, err := h.store.GetWorkbook(ctxOf(c), p.AccountID, cm.WorkbookID)
	if err != nil {
		return nil, errs.NotFoundf("commitId", "Commit not found")
	}
	if err := may(c, verbOf(c), place.Sheet(w, cm.SheetID)); err != nil {
		return nil, err
	}
	return cm, nil
}

// Get handles GET /v1/commits/:commitId.
func (h *Commits) Get(c *fiber.Ctx) error {
	cm, err := h.commit(c)
	if err != nil {
		return err
	}
	return data(c, toCommitJSON(cm))
}

// Complete handles POST /v1/commits/:commitId/complete: hooks are done; emits commit:completed.
func (h *Commits) Complete(c *fiber.Ctx) error {
	cm, err := h.commit(c)
	if err != nil {
		return err
	}
	p := PrincipalOf(c)
	if _, err := h.store.CompleteCommit(ctxOf(c), p.AccountID, cm.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Replay handles POST /v1/commits/:commitId/replay: commit:created is emitted again.
func (h *Commits) Replay(c *fiber.Ctx) error {
	cm, err := h.commit(c)
	if err != nil {
		return err
	}
	p := PrincipalOf(c)
	if err := h.store.ReplayCommit(ctxOf(c), p.AccountID, cm.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}
