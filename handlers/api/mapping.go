package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// MappingStore is what the mapping handlers need.
type MappingStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	CreateProgram(ctx context.Context, p *model.MappingProgram, actor string, keys store.RuleKeys) error
	GetProgram(ctx context.Context, accountID, id string) (*model.MappingProgram, error)
	ListPrograms(ctx context.Context, accountID, envID string, p model.Page) ([]*model.MappingProgram, error)
	DeleteProgram(ctx context.Context, p *model.MappingProgram, actor string) error
	ChangeRules(ctx context.Context, p *model.MappingProgram, add, replace []*model.MappingRule, del []string, actor string, keys store.RuleKeys) error
	MappingHistory(ctx context.Context, envID, actor string, keys []string) (mine, others map[string]map[string]int, err error)
	ForgetMappings(ctx context.Context, accountID, envID, actor string) error
	RecomputeProgram(ctx context.Context, p *model.MappingProgram, rules []*model.MappingRule, actor string, keys store.RuleKeys) error
	ProgramVersions(ctx context.Context, programID string) ([]store.ProgramVersion, error)
}

// Mapping serves /v1/mapping: programs and their rules.
type Mapping struct{ store MappingStore }

// NewMapping returns the mapping handlers.
func NewMapping(s MappingStore) *Mapping { return &Mapping{store: s} }

// assignConfig is the config of an assign rule.
type assignConfig struct {
	SourceField      string `json:"sourceField"`
	DestinationField string `json:"destinationField"`
}

var ruleTypes = map[string]bool{"assign": true, "ignore": true, "constant": true, "enum": true, "concatenate": true, "split": true, "trim": true, "case": true}

type ruleJSON struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Config     json.RawMessage `json:"config"`
	Metadata   json.RawMessage `json:"metadata"`
	Confidence *float64        `json:"confidence,omitempty"`
	AcceptedAt *Time           `json:"acceptedAt,omitempty"`
	AcceptedBy string          `json:"acceptedBy,omitempty"`
	CreatedBy  string          `json:"createdBy"`
	CreatedAt  Time            `json:"createdAt"`
	UpdatedAt  Time            `json:"updatedAt"`
}

func toRuleJSON(r *model.MappingRule) ruleJSON {
	return ruleJSON{ID: r.ID, Name: r.Name, Type: r.Type, Config: r.Config, Metadata: r.Metadata, Confidence: r.Confidence,
		AcceptedAt: wireTime(r.AcceptedAt), AcceptedBy: r.AcceptedBy, CreatedBy: r.CreatedBy, CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt)}
}

func rulesJSON(rs []*model.MappingRule) []ruleJSON {
	out := make([]ruleJSON, 0, len(rs))
	for _, r := range rs {
		out = append(out, toRuleJSON(r))
	}
	return out
}

type programJSON struct {
	ID              string     `json:"id"`
	Rules           []ruleJSON `json:"rules"`
	SourceKeys      []string   `json:"sourceKeys"`
	DestinationKeys []string   `json:"destinationKeys"`
	Namespace       string     `json:"namespace,omitempty"`
	FamilyID        string     `json:"familyId,omitempty"`
	CreatedBy       string     `json:"createdBy"`
	CreatedAt       Time       `json:"createdAt"`
	Summary         struct {
		TotalRuleCount   int `json:"totalRuleCount"`
		AddedRuleCount   int `json:"addedRuleCount"`
		DeletedRuleCount int `json:"deletedRuleCount"`
	} `json:"summary"`
}

func keysOf(cfg model.SheetConfig) []string {
	out := make([]string, 0, len(cfg.Fields))
	for _, f := range cfg.Fields {
		out = append(out, f.Key)
	}
	return out
}

func toProgramJSON(p *model.MappingProgram) programJSON {
	out := programJSON{ID: p.ID, Rules: rulesJSON(p.Rules), SourceKeys: keysOf(p.Source), DestinationKeys: keysOf(p.Destination), Namespace: p.Namespace,
		FamilyID: p.FamilyID, CreatedBy: p.CreatedBy, CreatedAt: Time(p.CreatedAt)}
	out.Summary.TotalRuleCount = len(p.Rules)
	out.Summary.AddedRuleCount = len(p.Rules)
	return out
}

type ruleIn struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Config     json.RawMessage `json:"config"`
	Metadata   json.RawMessage `json:"metadata"`
	AcceptedAt OptTime         `json:"acceptedAt"`
	AcceptedBy string          `json:"acceptedBy"`
}

func (in ruleIn) rule(i int) (*model.MappingRule, error) {
	key := fmt.Sprintf("rules[%d]", i)
	if !ruleTypes[in.Type] {
		return nil, errs.Invalidf(key+".type", "Rule type must be one of assign, ignore, constant, enum, concatenate, split, trim, case; got %q", in.Type)
	}
	if err := rawObject(key+".config", in.Config); err != nil {
		return nil, err
	}
	if in.Type == "assign" {
		var c assignConfig
		_ = json.Unmarshal(in.Config, &c)
		if c.SourceField == "" || c.DestinationField == "" {
			return nil, errs.Invalidf(key+".config", "An assign rule needs config.sourceField and config.destinationField")
		}
	}
	name := in.Name
	if strings.TrimSpace(name) == "" {
		name = in.Type
	}
	return &model.MappingRule{ID: in.ID, Name: name, Type: in.Type, Config: in.Config, Metadata: in.Metadata, AcceptedAt: in.AcceptedAt.Value, AcceptedBy: in.AcceptedBy}, nil
}

// Create handles POST /v1/mapping?environmentId=: a program from source and destination
// sheet configs. Without rules, the engine suggests assign rules, each with its confidence and
// the reasons in metadata.
func (h *Mapping) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Source      *model.SheetConfig `json:"source"`
		Destination *model.SheetConfig `json:"destination"`
		FamilyID    string             `json:"familyId"`
		Namespace   string             `json:"namespace"`
		Rules       []ruleIn           `json:"rules"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Source == nil || in.Destination == nil {
		return errs.Invalidf("source", "source and destination sheet configs are required")
	}
	for key, cfg := range map[string]*model.SheetConfig{"source": in.Source, "destination": in.Destination} {
		if cfg.Name == "" {
			cfg.Name = key
		}
		if err := schema.Sheet(cfg, key, h.store.Settings().Caps); err != nil {
			return err
		}
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
	prog := &model.MappingProgram{AccountID: p.AccountID, EnvironmentID: envID, Namespace: in.Namespace, FamilyID: in.FamilyID, Source: *in.Source, Destination: *in.Destination}
	if in.Rules != nil { // rules sent (even none) are taken as they are; without, the engine suggests
		for i, r := range in.Rules {
			rule, err := r.rule(i)
			if err != nil {
				return err
			}
			prog.Rules = append(prog.Rules, rule)
		}
	} else if prog.Rules, err = h.suggest(ctxOf(c), p, envID, *in.Source, *in.Destination); err != nil {
		return err
	}
	if err := h.store.CreateProgram(ctxOf(c), prog, p.ActorID, mapping.RuleKeys); err != nil {
		return err
	}
	return data(c, toProgramJSON(prog))
}

// suggest turns the engine's suggestions into assign rules.
func (h *Mapping) suggest(ctx context.Context, p *auth.Principal, envID string, src, dst model.SheetConfig) ([]*model.MappingRule, error) {
	cols := make([]mapping.Column, 0, len(src.Fields))
	keys := make([]string, 0, len(src.Fields))
	for _, f := range src.Fields {
		header := f.Key
		if f.Label != "" {
			header = f.Label
		}
		cols = append(cols, mapping.Column{Header: header})
		keys = append(keys, mapping.Normalize(f.Key), mapping.Normalize(header))
	}
	mine, others, err := h.store.MappingHistory(ctx, envID, auth.HistoryOwner(p), keys)
	if err != nil {
		return nil, err
	}
	var rules []*model.MappingRule
	for i, s := range mapping.Suggest(cols, dst, mapping.History{Mine: mine, Others: others}, mapping.Options{}).Columns {
		if s.Destination == "" {
			continue
		}
		cfg, _ := json.Marshal(assignConfig{SourceField: src.Fields[i].Key, DestinationField: s.Destination})
		meta, _ := json.Marshal(map[string]any{"reasons": s.Reasons, "autoApply": s.AutoApply})
		conf := s.Confidence
		rules = append(rules, &model.MappingRule{Name: src.Fields[i].Key + " → " + s.Destination, Type: "assign", Config: cfg, Metadata: meta, Confidence: &conf})
	}
	return rules, nil
}

func (h *Mapping) program(c *fiber.Ctx) (*auth.Principal, *model.MappingProgram, error) {
	prog, err := inReach(c, verbOf(c), h.store.GetProgram, c.Params("programId"))
	return PrincipalOf(c), prog, err
}

// Get handles GET /v1/mapping/:programId.
func (h *Mapping) Get(c *fiber.Ctx) error {
	_, prog, err := h.program(c)
	if err != nil {
		return err
	}
	return data(c, toProgramJSON(prog))
}

// Versions handles GET /v1/mapping/:programId/versions (a Sluice extension): the versions a
// transform job's input.version can name, newest first.
func (h *Mapping) Versions(c *fiber.Ctx) error {
	_, prog, err := h.program(c)
	if err != nil {
		return err
	}
	vs, err := h.store.ProgramVersions(ctxOf(c), prog.ID)
	if err != nil {
		return err
	}
	type versionJSON struct {
		Version   string `json:"version"`
		RuleCount int    `json:"ruleCount"`
		CreatedBy string `json:"createdBy,omitempty"`
		CreatedAt Time   `json:"createdAt"`
	}
	out := make([]versionJSON, len(vs))
	for i, v := range vs {
		out[i] = versionJSON{Version: strconv.Itoa(v.Version), RuleCount: v.RuleCount, CreatedBy: v.CreatedBy, CreatedAt: Time(v.CreatedAt)}
	}
	return data(c, out)
}

// List handles GET /v1/mapping (environmentId, pageSize, pageNumber).
func (h *Mapping) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	envID, _, err := listScope(c, auth.ResEnvConfig, c.Query("environmentId"), "")
	if err != nil {
		return err
	}
	pg, err := page(c, 20, 1000)
	if err != nil {
		return err
	}
	progs, err := h.store.ListPrograms(ctxOf(c), p.AccountID, envID, pg)
	if err != nil {
		return err
	}
	out := make([]programJSON, 0, len(progs))
	for _, pr := range progs {
		out = append(out, toProgramJSON(pr))
	}
	return data(c, out)
}

// Update handles PATCH /v1/mapping/:programId: rules sent replace the program's rules; a new
// source or destination without rules recomputes the suggestions (program:recomputing, then
// program:recomputed).
func (h *Mapping) Update(c *fiber.Ctx) error {
	p, prog, err := h.program(c)
	if err != nil {
		return err
	}
	var in struct {
		Rules       []ruleIn           `json:"rules"`
		Source      *model.SheetConfig `json:"source"`
		Destination *model.SheetConfig `json:"destination"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Rules == nil && (in.Source != nil || in.Destination != nil) {
		for key, cfg := range map[string]*model.SheetConfig{"source": in.Source, "destination": in.Destination} {
			if cfg == nil {
				continue
			}
			if cfg.Name == "" {
				cfg.Name = key
			}
			if err := schema.Sheet(cfg, key, h.store.Settings().Caps); err != nil {
				return err
			}
		}
		if in.Source != nil {
			prog.Source = *in.Source
		}
		if in.Destination != nil {
			prog.Destination = *in.Destination
		}
		rules, err := h.suggest(ctxOf(c), p, prog.EnvironmentID, prog.Source, prog.Destination)
		if err != nil {
			return err
		}
		if err := h.store.RecomputeProgram(ctxOf(c), prog, rules, p.ActorID, mapping.RuleKeys); err != nil {
			return err
		}
		return data(c, toProgramJSON(prog))
	}
	if in.Rules != nil {
		var add []*model.MappingRule
		for i, r := range in.Rules {
			rule, err := r.rule(i)
			if err != nil {
				return err
			}
			add = append(add, rule)
		}
		var del []string
		for _, r := range prog.Rules {
			del = append(del, r.ID)
		}
		if err := h.store.ChangeRules(ctxOf(c), prog, add, nil, del, p.ActorID, mapping.RuleKeys); err != nil {
			return err
		}
	}
	return h.Get(c)
}

// Delete handles DELETE /v1/mapping/:programId.
func (h *Mapping) Delete(c *fiber.Ctx) error {
	p, prog, err := h.program(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteProgram(ctxOf(c), prog, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Forget handles DELETE /v1/mapping: deletes the caller's mapping history (their programs).
func (h *Mapping) Forget(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		EnvironmentID string `json:"environmentId"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	envID, err := environmentScope(p, cmp.Or(in.EnvironmentID, c.Query("environmentId")))
	if err != nil {
		return err
	}
	// One's own history only: an embedded visitor forgets its space's, not every visitor's.
	owner := auth.HistoryOwner(p)
	if err := may(c, auth.Write, auth.Resource{Kind: auth.ResHistory, AccountID: p.AccountID, EnvironmentID: cmp.Or(envID, p.EnvironmentID), SpaceID: p.SpaceID, SheetID: p.SheetID, OwnerID: owner}); err != nil {
		return err
	}
	if err := h.store.ForgetMappings(ctxOf(c), p.AccountID, envID, owner); err != nil {
		return err
	}
	return success(c)
}

// Rules handles GET /v1/mapping/:programId/rules.
func (h *Mapping) Rules(c *fiber.Ctx) error {
	_, prog, err := h.program(c)
	if err != nil {
		return err
	}
	return data(c, rulesJSON(prog.Rules))
}

// Rule handles GET /v1/mapping/:programId/rules/:mappingId.
func (h *Mapping) Rule(c *fiber.Ctx) error {
	_, prog, err := h.program(c)
	if err != nil {
		return err
	}
	for _, r := range prog.Rules {
		if r.ID == c.Params("mappingId") {
			return data(c, toRuleJSON(r))
		}
	}
	return errs.NotFoundf("mappingId", "Mapping rule not found")
}

// AddRules handles POST /v1/mapping/:programId/rules (an array of rule configs).
func (h *Mapping) AddRules(c *fiber.Ctx) error {
	p, prog, err := h.program(c)
	if err != nil {
		return err
	}
	var in []ruleIn
	if err := bind(c, &in); err != nil {
		return err
	}
	var add []*model.MappingRule
	for i, r := range in {
		rule, err := r.rule(i)
		if err != nil {
			return err
		}
		add = append(add, rule)
	}
	if err := h.store.ChangeRules(ctxOf(c), prog, add, nil, nil, p.ActorID, mapping.RuleKeys); err != nil {
		return err
	}
	return data(c, rulesJSON(add))
}

// UpdateRules handles PATCH /v1/mapping/:programId/rules (an array of rules with ids), and
// PATCH …/rules/:mappingId with one rule.
func (h *Mapping) UpdateRules(c *fiber.Ctx) error {
	p, prog, err := h.program(c)
	if err != nil {
		return err
	}
	var in []ruleIn
	one := c.Params("mappingId")
	if one != "" {
		var r ruleIn
		if err := bind(c, &r); err != nil {
			return err
		}
		r.ID = one
		in = []ruleIn{r}
	} else if err := bind(c, &in); err != nil {
		return err
	}
	byID := map[string]*model.MappingRule{}
	for _, r := range prog.Rules {
		byID[r.ID] = r
	}
	var rep []*model.MappingRule
	for i, r := range in {
		old, ok := byID[r.ID]
		if !ok {
			return errs.NotFoundf(fmt.Sprintf("rules[%d].id", i), "Rule %q is not in this program", r.ID)
		}
		if r.Type == "" {
			r.Type = old.Type
		}
		if len(r.Config) == 0 {
			r.Config = old.Config
		}
		rule, err := r.rule(i)
		if err != nil {
			return err
		}
		if !r.AcceptedAt.Set {
			rule.AcceptedAt, rule.AcceptedBy = old.AcceptedAt, old.AcceptedBy
		} else if rule.AcceptedAt != nil && rule.AcceptedBy == "" {
			rule.AcceptedBy = p.ActorID
		}
		if len(r.Metadata) == 0 {
			rule.Metadata = old.Metadata
		}
		rule.Confidence, rule.CreatedBy, rule.CreatedAt = old.Confidence, old.CreatedBy, old.CreatedAt
		rep = append(rep, rule)
	}
	if err := h.store.ChangeRules(ctxOf(c), prog, nil, rep, nil, p.ActorID, mapping.RuleKeys); err != nil {
		return err
	}
	if one != "" {
		return data(c, toRuleJSON(rep[0]))
	}
	return data(c, rulesJSON(rep))
}

// DeleteRules handles DELETE /v1/mapping/:programId/rules ({ruleIds: […]}) and
// DELETE …/rules/:mappingId.
func (h *Mapping) DeleteRules(c *fiber.Ctx) error {
	p, prog, err := h.program(c)
	if err != nil {
		return err
	}
	ids := []string{c.Params("mappingId")}
	if ids[0] == "" {
		var in struct {
			RuleIDs []string `json:"ruleIds"`
		}
		if err := bind(c, &in); err != nil {
			return err
		}
		if len(in.RuleIDs) == 0 {
			return errs.Invalidf("ruleIds", "ruleIds must list at least one rule id of the program")
		}
		ids = in.RuleIDs
	}
	if err := h.store.ChangeRules(ctxOf(c), prog, nil, nil, ids, p.ActorID, mapping.RuleKeys); err != nil {
		return err
	}
	return success(c)
}
