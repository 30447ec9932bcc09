package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

var (
	actionModes       = []string{"foreground", "background", "toolbarBlocking"}
	actionConstraints = []string{model.ConstraintHasData, model.ConstraintHasAllValid, model.ConstraintHasSelection, model.ConstraintHasColumnEnabled}
	actionMounts      = []string{"sheet", "workbook", "field", "document", "file"}
	inputTypes        = []string{model.InputString, model.InputTextarea, model.InputNumber, model.InputBoolean, model.InputEnum}
)

// CheckAction validates an action definition.
func CheckAction(c *model.ActionConfig) error {
	switch {
	case strings.TrimSpace(c.Label) == "":
		return errs.Invalidf("label", "label is required")
	case c.Mode != "" && !slices.Contains(actionModes, c.Mode):
		return errs.Invalidf("mode", "mode must be foreground, background or toolbarBlocking, got %q", c.Mode)
	case c.Schedule != "" && !slices.Contains([]string{"weekly", "daily", "hourly"}, c.Schedule):
		return errs.Invalidf("schedule", "schedule must be weekly, daily or hourly, got %q", c.Schedule)
	case c.Mount != nil && !slices.Contains(actionMounts, c.Mount.Type):
		return errs.Invalidf("mount.type", "mount.type must be one of %s, got %q", strings.Join(actionMounts, ", "), c.Mount.Type)
	case c.Guide != nil && strings.TrimSpace(c.Guide.Content) == "":
		return errs.Invalidf("guide.content", "guide.content is required when guide is given")
	case c.Guardrail != nil && strings.TrimSpace(c.Guardrail.Content) == "":
		return errs.Invalidf("guardrail.content", "guardrail.content is required when guardrail is given")
	}
	for _, k := range c.Constraints {
		if !slices.Contains(actionConstraints, k.Type) {
			return errs.Invalidf("constraints", "constraint type must be one of %s, got %q", strings.Join(actionConstraints, ", "), k.Type)
		}
	}
	for _, m := range c.Messages {
		if m.Type != "error" && m.Type != "info" {
			return errs.Invalidf("messages", "message type must be error or info, got %q", m.Type)
		}
		if strings.TrimSpace(m.Content) == "" {
			return errs.Invalidf("messages", "every message needs content")
		}
	}
	if c.InputForm != nil {
		return checkForm(c.InputForm)
	}
	return nil
}

func checkForm(f *model.InputForm) error {
	if f.Type != "simple" {
		return errs.Invalidf("inputForm.type", "inputForm.type must be simple, got %q", f.Type)
	}
	seen := map[string]bool{}
	for i, fd := range f.Fields {
		key := "inputForm.fields[" + itoa(i) + "]"
		switch {
		case strings.TrimSpace(fd.Key) == "":
			return errs.Invalidf(key+".key", "%s.key is required", key)
		case seen[fd.Key]:
			return errs.Invalidf(key+".key", "input field key %q is used twice", fd.Key)
		case strings.TrimSpace(fd.Label) == "":
			return errs.Invalidf(key+".label", "%s.label is required", key)
		case !slices.Contains(inputTypes, fd.Type):
			return errs.Invalidf(key+".type", "input field type must be one of %s, got %q", strings.Join(inputTypes, ", "), fd.Type)
		}
		seen[fd.Key] = true
		for _, c := range fd.Constraints {
			if c.Type != "required" {
				return errs.Invalidf(key+".constraints", "the only input constraint is required, got %q", c.Type)
			}
		}
		if fd.Type == model.InputEnum && (fd.Config == nil || len(fd.Config.Options) == 0) {
			return errs.Invalidf(key+".config.options", "enum input %q needs config.options", fd.Key)
		}
		if absent(fd.DefaultValue) {
			continue
		}
		if fd.Type == model.InputNumber || fd.Type == model.InputBoolean {
			return errs.Invalidf(key+".defaultValue", "defaultValue is supported for enum, string and textarea inputs, not %s", fd.Type)
		}
		if err := checkInputValue(&fd, fd.DefaultValue, key+".defaultValue"); err != nil {
			return err
		}
	}
	return nil
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// checkInputValue checks one value against an input field's type (and enum options).
func checkInputValue(f *model.InputField, v json.RawMessage, key string) error {
	var ok bool
	switch f.Type {
	case model.InputString, model.InputTextarea:
		var s string
		ok = json.Unmarshal(v, &s) == nil
	case model.InputNumber:
		var n float64
		ok = json.Unmarshal(v, &n) == nil
	case model.InputBoolean:
		var b bool
		ok = json.Unmarshal(v, &b) == nil
	case model.InputEnum:
		for _, o := range f.Config.Options {
			if sameJSON(o.Value, v) {
				return nil
			}
		}
		return errs.Invalidf(key, "%s must be one of the options of %q", key, f.Key)
	}
	if !ok {
		kind := f.Type
		if kind == model.InputTextarea {
			kind = model.InputString
		}
		return errs.Invalidf(key, "%s must be a %s", key, kind)
	}
	return nil
}

// sameJSON compares two JSON values by their compact form.
func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// CheckInput validates input-form values against the form and fills default values. Keys
// that are not in the form, wrong types, enum values outside the options and missing
// required values are invalid. With no form any object passes.
func CheckInput(form *model.InputForm, raw json.RawMessage) (json.RawMessage, error) {
	if err := objectOrAbsent("input", raw); err != nil {
		return nil, err
	}
	if form == nil {
		return raw, nil
	}
	in := map[string]json.RawMessage{}
	if !absent(raw) {
		_ = json.Unmarshal(raw, &in)
	}
	known := map[string]bool{}
	for i := range form.Fields {
		f := &form.Fields[i]
		known[f.Key] = true
		key := "input." + f.Key
		v, present := in[f.Key]
		if !present || absent(v) {
			if !absent(f.DefaultValue) {
				in[f.Key] = f.DefaultValue
			} else if f.Required() {
				return nil, errs.Invalidf(key, "%q is required", f.Label)
			}
			continue
		}
		if err := checkInputValue(f, v, key); err != nil {
			return nil, err
		}
		if f.Required() && string(bytes.TrimSpace(v)) == `""` {
			return nil, errs.Invalidf(key, "%q is required", f.Label)
		}
	}
	var unknown []string
	for k := range in {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, errs.Invalidf("input."+unknown[0], "%q is not a field of the action's input form", unknown[0])
	}
	return json.Marshal(in)
}

// actionOf finds the action a job runs: the one RunAction gave, or the action with the job's
// operation mounted on its source.
func (s *Service) actionOf(ctx context.Context, j *model.Job) (*model.Action, error) {
	if j.ActionID != "" {
		return s.DB.GetAction(ctx, j.AccountID, j.ActionID)
	}
	switch store.KindOf(j.Source) {
	case store.KindWorkbook, store.KindSheet, store.KindFile, store.KindDocument, store.KindSpace:
		return s.DB.FindAction(ctx, j.AccountID, j.Source, j.Operation)
	}
	return nil, nil
}

// applyAction applies an action's rules to the job that runs it.
func (s *Service) applyAction(ctx context.Context, j *model.Job, a *model.Action) error {
	j.ActionID = a.ID
	if j.Mode == "" {
		j.Mode = a.Config.Mode
	}
	in, err := CheckInput(a.Config.InputForm, j.Input)
	if err != nil {
		return err
	}
	j.Input = in
	if err := s.checkPendingCommits(ctx, j); err != nil {
		return err
	}
	return s.checkConstraints(ctx, a)
}

// checkPendingCommits refuses actions on a workbook with settings.trackChanges while any of
// its commits is still pending (record hooks have not finished with it).
func (s *Service) checkPendingCommits(ctx context.Context, j *model.Job) error {
	if j.WorkbookID == "" {
		return nil
	}
	wb, err := s.DB.GetWorkbook(ctx, j.AccountID, j.WorkbookID)
	if err != nil {
		return err
	}
	var set struct {
		TrackChanges bool `json:"trackChanges"`
	}
	if json.Unmarshal(wb.Settings, &set) != nil || !set.TrackChanges {
		return nil //nolint:nilerr // settings that do not parse track no changes
	}
	n, err := s.DB.PendingCommits(ctx, j.WorkbookID)
	if err != nil || n == 0 {
		return err
	}
	return errs.E(errs.Conflict, "workbookId", "Actions wait while the workbook tracks changes and %d commit(s) are pending", n)
}

// checkConstraints refuses to run an action whose hasData or hasAllValid constraint (or
// requireAllValid / requireAllValidTotal) does not hold for its sheet or workbook. Without a
// selection, requireAllValid applies to all records, like requireAllValidTotal.
func (s *Service) checkConstraints(ctx context.Context, a *model.Action) error {
	c := &a.Config
	needData := c.Has(model.ConstraintHasData)
	needValid := c.Has(model.ConstraintHasAllValid) || isTrue(c.RequireAllValid) || isTrue(c.RequireAllValidTotal)
	if (!needData && !needValid) || s.Counts == nil {
		return nil
	}
	var sheets []string
	switch store.KindOf(a.TargetID) {
	case store.KindSheet:
		sheets = []string{a.TargetID}
	case store.KindWorkbook:
		var err error
		if sheets, err = s.DB.SheetIDsOfWorkbook(ctx, a.TargetID); err != nil {
			return err
		}
	default:
		return nil
	}
	var total, valid int64
	for _, id := range sheets {
		n, err := s.Counts.GetRecordCounts(ctx, a.AccountID, id)
		if err != nil {
			return err
		}
		total, valid = total+n.Total, valid+n.Valid
	}
	if needData && total == 0 {
		return errs.E(errs.Conflict, "constraints", "Action %q needs data: its %s has no records", c.Label, store.KindOf(a.TargetID))
	}
	if needValid && valid < total {
		return errs.E(errs.Conflict, "constraints", "Action %q needs all records to be valid: %d of %d records have errors", c.Label, total-valid, total)
	}
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// checkBlocking refuses an action on a workbook (or one of its sheets) while a
// toolbarBlocking action mounted on that workbook has an unfinished job.
func checkBlocking(tx *store.Tx, j *model.Job, a *model.Action) error {
	if j.WorkbookID == "" {
		return nil
	}
	b, err := tx.BlockingJob(j.WorkbookID)
	if err != nil || b == nil {
		return err
	}
	return errs.E(errs.Conflict, "actionId", "Workbook actions are blocked while job %s (%s, toolbarBlocking) is %s", b.ID, b.Name(), b.Status)
}

// RunAction creates the job that runs action a: named "<target type>:<operation>", with the
// input-form values, trigger immediate (so job:ready goes out at once) and context.actionId
// on its events. Errors: invalid, not_found, conflict.
func (s *Service) RunAction(ctx context.Context, a *model.Action, input json.RawMessage, actor string) (*model.Job, error) {
	if a.Config.Operation == "" {
		return nil, errs.Invalidf("operation", "Action %q has no operation to run", a.Config.Label)
	}
	typ := a.TargetType
	j := &model.Job{AccountID: a.AccountID, EnvironmentID: a.EnvironmentID, Type: typ, Operation: a.Config.Operation, Source: a.TargetID,
		Trigger: "immediate", Mode: a.Config.Mode, Input: input, ActionID: a.ID}
	if err := s.Prepare(ctx, j); err != nil {
		return nil, err
	}
	if err := s.Create(ctx, j, actor); err != nil {
		return nil, err
	}
	return j, nil
}
