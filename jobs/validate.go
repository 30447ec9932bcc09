package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/sluice/sluice/errs"
)

// Job types and modes the client knows.
var (
	jobTypes    = []string{"file", "workbook", "sheet", "space", "document", "app", "agent", "autobuild", "onboarding"}
	jobModes    = []string{"foreground", "background", "toolbarBlocking", "hidden"}
	jobTriggers = []string{"manual", "immediate"}
)

// OpDeleteRecords is the built-in operation that deletes a sheet's records by filter.
const OpDeleteRecords = "delete-records"

// OpTransform is the operation of transform (mapping program) jobs.
const OpTransform = "transform"

// decodeStrict decodes raw into dst; a wrong type becomes an invalid error keyed
// "<key>.<field>".
func decodeStrict(key string, raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			k := key
			if te.Field != "" {
				k = key + "." + te.Field
			}
			return errs.Invalidf(k, "%s must not be %s", k, te.Value)
		}
		return errs.Invalidf(key, "%s is not valid JSON: %v", key, err)
	}
	return nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// absent reports whether an optional JSON value was left out or sent as null.
func absent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// objectOrAbsent checks an optional object field.
func objectOrAbsent(key string, raw json.RawMessage) error {
	if absent(raw) || isObject(raw) {
		return nil
	}
	return errs.Invalidf(key, "%s must be an object", key)
}

// DeleteRecordsConfig is the config of a delete-records job.
type DeleteRecordsConfig struct {
	Sheet         string   `json:"sheet"`
	Filter        string   `json:"filter,omitempty"`      // valid | error | all | none (default none)
	FilterField   string   `json:"filterField,omitempty"` // narrows filter valid/error to one field; requires filter
	SearchValue   string   `json:"searchValue,omitempty"`
	SearchField   string   `json:"searchField,omitempty"`
	Q             string   `json:"q,omitempty"`
	Exceptions    []string `json:"exceptions,omitempty"` // record ids kept
	SnapshotLabel string   `json:"snapshotLabel,omitempty"`
}

// ParseDeleteRecordsConfig decodes and checks a delete-records config.
func ParseDeleteRecordsConfig(raw json.RawMessage) (*DeleteRecordsConfig, error) {
	if !isObject(raw) {
		return nil, errs.Invalidf("config", "A delete-records job needs a config object with the sheet to delete from")
	}
	var c DeleteRecordsConfig
	if err := decodeStrict("config", raw, &c); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(c.Sheet) == "":
		return nil, errs.Invalidf("config.sheet", "config.sheet is required: the id of the sheet to delete records from")
	case c.Filter != "" && !slices.Contains([]string{"valid", "error", "all", "none"}, c.Filter):
		return nil, errs.Invalidf("config.filter", "config.filter must be valid, error, all or none, got %q", c.Filter)
	case c.FilterField != "" && c.Filter == "":
		return nil, errs.Invalidf("config.filterField", "config.filterField narrows the valid or error filter to one field, so it requires config.filter")
	}
	return &c, nil
}

// checkConfig validates a job's config for the operations Sluice itself understands.
func checkConfig(operation string, raw json.RawMessage) error {
	if err := objectOrAbsent("config", raw); err != nil {
		return err
	}
	if operation == OpDeleteRecords {
		_, err := ParseDeleteRecordsConfig(raw)
		return err
	}
	return nil
}

// normalizeInput checks a job's input and fills defaults: a transform job's input takes
// programId (string, required), version (string) and keepRecordIds (boolean, default false).
func normalizeInput(operation string, raw json.RawMessage) (json.RawMessage, error) {
	if err := objectOrAbsent("input", raw); err != nil {
		return nil, err
	}
	if operation != OpTransform {
		return raw, nil
	}
	var in struct {
		ProgramID     *string `json:"programId"`
		Version       *string `json:"version"`
		KeepRecordIDs *bool   `json:"keepRecordIds"`
	}
	if !absent(raw) {
		if err := decodeStrict("input", raw, &in); err != nil {
			return nil, err
		}
	}
	if in.ProgramID == nil || *in.ProgramID == "" {
		return nil, errs.Invalidf("input.programId", "A transform job needs input.programId, the mapping program to run")
	}
	m := map[string]any{}
	if !absent(raw) {
		_ = json.Unmarshal(raw, &m)
	}
	if in.KeepRecordIDs == nil {
		m["keepRecordIds"] = false
	}
	return json.Marshal(m)
}

// checkProgress rejects progress outside 0–100.
func checkProgress(p *float64) error {
	if p != nil && (*p < 0 || *p > 100) {
		return errs.Invalidf("progress", "progress must be between 0 and 100, got %v", *p)
	}
	return nil
}

// nextFields says, per outcome.next type, which fields it has: "s" string, "b" boolean,
// "l" list of strings, "f" list of {fileId, label?}; a trailing "!" marks required ones.
var nextFields = map[string]map[string]string{
	"id":           {"id": "s!", "label": "s", "path": "s", "query": "s"},
	"url":          {"url": "s!", "label": "s"},
	"download":     {"url": "s!", "label": "s", "fileName": "s"},
	"files":        {"files": "f!", "label": "s"},
	"wait":         {"fade": "b", "confetti": "b"},
	"snapshot":     {"snapshotId": "s!", "sheetId": "s!"},
	"retry":        {"label": "s"},
	"view":         {"sheetId": "s!", "hiddenColumns": "l!", "label": "s"},
	"clearFilters": {"label": "s", "sheetIds": "l"},
}

// CheckOutcome validates a job outcome: {acknowledge?, trigger?, buttonText?, heading?,
// message?, hideDefaultButton?, next?} with next one of Flatfile's variants.
func CheckOutcome(raw json.RawMessage) error {
	if absent(raw) {
		return nil
	}
	if !isObject(raw) {
		return errs.Invalidf("outcome", "outcome must be an object")
	}
	var o struct {
		Acknowledge       *bool           `json:"acknowledge"`
		Trigger           json.RawMessage `json:"trigger"`
		ButtonText        *string         `json:"buttonText"`
		Heading           *string         `json:"heading"`
		Message           *string         `json:"message"`
		HideDefaultButton *bool           `json:"hideDefaultButton"`
		Next              json.RawMessage `json:"next"`
	}
	if err := decodeStrict("outcome", raw, &o); err != nil {
		return err
	}
	if err := checkTrigger(o.Trigger); err != nil {
		return err
	}
	return checkNext(o.Next)
}

func checkTrigger(raw json.RawMessage) error {
	if absent(raw) {
		return nil
	}
	types := []string{"manual", "automatic", "automatic_silent"}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if !slices.Contains(types, s) {
			return errs.Invalidf("outcome.trigger", "outcome.trigger must be manual, automatic or automatic_silent, got %q", s)
		}
		return nil
	}
	var d struct {
		Type     string `json:"type"`
		Audience string `json:"audience"`
	}
	if err := decodeStrict("outcome.trigger", raw, &d); err != nil {
		return err
	}
	if !slices.Contains(types, d.Type) {
		return errs.Invalidf("outcome.trigger.type", "outcome.trigger.type must be manual, automatic or automatic_silent, got %q", d.Type)
	}
	if d.Audience != "" && d.Audience != "originator" && d.Audience != "all" {
		return errs.Invalidf("outcome.trigger.audience", "outcome.trigger.audience must be originator or all, got %q", d.Audience)
	}
	return nil
}

func checkNext(raw json.RawMessage) error {
	if absent(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return errs.Invalidf("outcome.next", "outcome.next must be an object with a type")
	}
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	spec, ok := nextFields[typ]
	if !ok {
		return errs.Invalidf("outcome.next.type", "outcome.next.type must be one of id, url, download, files, wait, snapshot, retry, view, clearFilters; got %q", typ)
	}
	for name, kind := range spec {
		key := "outcome.next." + name
		v, present := m[name]
		if !present || absent(v) {
			if strings.HasSuffix(kind, "!") {
				return errs.Invalidf(key, "%s is required when outcome.next.type is %s", key, typ)
			}
			continue
		}
		if err := checkKind(key, strings.TrimSuffix(kind, "!"), v); err != nil {
			return err
		}
	}
	return nil
}

func checkKind(key, kind string, v json.RawMessage) error {
	var err error
	switch kind {
	case "s":
		var s string
		err = json.Unmarshal(v, &s)
	case "b":
		var b bool
		err = json.Unmarshal(v, &b)
	case "l":
		var l []string
		err = json.Unmarshal(v, &l)
	case "f":
		var files []struct {
			FileID string  `json:"fileId"`
			Label  *string `json:"label"`
		}
		if err = json.Unmarshal(v, &files); err == nil {
			for _, f := range files {
				if f.FileID == "" {
					return errs.Invalidf(key, "every entry of %s needs a fileId", key)
				}
			}
		}
	}
	if err != nil {
		names := map[string]string{"s": "a string", "b": "a boolean", "l": "an array of strings", "f": "an array of {fileId, label?}"}
		return errs.Invalidf(key, "%s must be %s", key, names[kind])
	}
	return nil
}
