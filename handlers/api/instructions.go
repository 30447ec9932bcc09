package api

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// InstructionThreshold is the least family similarity at which an instruction applies to a
// sheet, unless the sheet sets a mappingConfidenceThreshold.
const InstructionThreshold = 0.5

// InstructionStore is what the instruction handlers need.
type InstructionStore interface {
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	SaveInstruction(ctx context.Context, in *store.Instruction) error
	GetInstruction(ctx context.Context, accountID, id string) (*store.Instruction, error)
	ListInstructions(ctx context.Context, envID string) ([]*store.Instruction, error)
	DeleteInstruction(ctx context.Context, accountID, id string) error
}

// Instructions serves /v1/instructions.
type Instructions struct{ store InstructionStore }

// NewInstructions returns the instruction handlers.
func NewInstructions(s InstructionStore) *Instructions { return &Instructions{store: s} }

type instructionJSON struct {
	ID            string          `json:"id"`
	Instructions  string          `json:"instructions"`
	FieldKeys     []string        `json:"fieldKeys"`
	Metadata      json.RawMessage `json:"metadata"`
	Scope         string          `json:"scope,omitempty"`
	EnvironmentID string          `json:"environmentId"`
	Confidence    *float64        `json:"confidence,omitempty"`
	CreatedAt     Time            `json:"createdAt"`
	UpdatedAt     Time            `json:"updatedAt"`
}

func toInstructionJSON(in *store.Instruction) instructionJSON {
	return instructionJSON{ID: in.ID, Instructions: in.Text, FieldKeys: nonEmptyList(in.FieldKeys), Metadata: in.Metadata, Scope: in.Scope,
		EnvironmentID: in.EnvironmentID, CreatedAt: Time(in.CreatedAt), UpdatedAt: Time(in.UpdatedAt)}
}

type instructionIn struct {
	Instructions *string         `json:"instructions"`
	FieldKeys    []string        `json:"fieldKeys"`
	Metadata     json.RawMessage `json:"metadata"`
}

// Create handles POST /v1/instructions?environmentId=&scope=.
func (h *Instructions) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in instructionIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Instructions == nil || strings.TrimSpace(*in.Instructions) == "" {
		return errs.Invalidf("instructions", "instructions (the guidance text) is required")
	}
	if len(in.FieldKeys) == 0 {
		return errs.Invalidf("fieldKeys", "fieldKeys must name the fields the instruction is for")
	}
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	envID, err := environmentScope(p, c.Query("environmentId"))
	if err != nil {
		return err
	}
	if envID == "" {
		return errs.Invalidf("environmentId", "environmentId is required")
	}
	if err := may(c, auth.Write, place.EnvConfig(p.AccountID, envID)); err != nil {
		return err
	}
	if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, envID); err != nil {
		return err
	}
	ins := &store.Instruction{AccountID: p.AccountID, EnvironmentID: envID, Scope: c.Query("scope"), Text: *in.Instructions, FieldKeys: in.FieldKeys,
		Metadata: in.Metadata, CreatedBy: p.ActorID}
	if err := h.store.SaveInstruction(ctxOf(c), ins); err != nil {
		return err
	}
	return data(c, toInstructionJSON(ins))
}

// ForSheet handles GET /v1/instructions/sheet/:sheetId: the environment's instructions whose
// field family is similar enough to the sheet's fields, most similar first, each with its
// similarity as confidence.
func (h *Instructions) ForSheet(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	sheet, w, err := h.store.GetSheet(ctxOf(c), p.AccountID, c.Params("sheetId"))
	if err != nil {
		return err
	}
	if err := may(c, auth.Read, place.Sheet(w, sheet.ID)); err != nil {
		return err
	}
	threshold := InstructionThreshold
	if t := sheet.Config.MappingConfidenceThreshold; t != nil {
		threshold = *t
	}
	keys := make([]string, 0, len(sheet.Config.Fields))
	for _, f := range sheet.Config.Fields {
		keys = append(keys, f.Key)
	}
	list, err := h.store.ListInstructions(ctxOf(c), w.EnvironmentID)
	if err != nil {
		return err
	}
	out := []instructionJSON{}
	for _, in := range list {
		sim := math.Round(mapping.FamilySimilarity(in.FieldKeys, keys)*1000) / 1000
		if sim >= threshold {
			j := toInstructionJSON(in)
			j.Confidence = &sim
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return *out[a].Confidence > *out[b].Confidence })
	return data(c, out)
}

func (h *Instructions) instruction(c *fiber.Ctx) (*store.Instruction, error) {
	return inReach(c, verbOf(c), h.store.GetInstruction, c.Params("instructionId"))
}

// Update handles PATCH /v1/instructions/:instructionId.
func (h *Instructions) Update(c *fiber.Ctx) error {
	ins, err := h.instruction(c)
	if err != nil {
		return err
	}
	var in instructionIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	if in.Instructions != nil {
		if strings.TrimSpace(*in.Instructions) == "" {
			return errs.Invalidf("instructions", "instructions cannot be empty")
		}
		ins.Text = *in.Instructions
	}
	if in.FieldKeys != nil {
		if len(in.FieldKeys) == 0 {
			return errs.Invalidf("fieldKeys", "fieldKeys cannot be empty")
		}
		ins.FieldKeys = in.FieldKeys
	}
	if len(in.Metadata) > 0 {
		ins.Metadata = in.Metadata
	}
	if err := h.store.SaveInstruction(ctxOf(c), ins); err != nil {
		return err
	}
	return data(c, toInstructionJSON(ins))
}

// Delete handles DELETE /v1/instructions/:instructionId.
func (h *Instructions) Delete(c *fiber.Ctx) error {
	ins, err := h.instruction(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteInstruction(ctxOf(c), ins.AccountID, ins.ID); err != nil {
		return err
	}
	return success(c)
}
