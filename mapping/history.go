package mapping

import (
	"encoding/json"
	"fmt"

	"github.com/sluice/sluice/model"
)

// OtherUsersWeight is how much another user's accepted mapping counts against the current
// user's own, for field and enum mapping (the spec's Limits table).
const OtherUsersWeight = 0.8

// Counts records accepted choices: normalised source text (see Normalize) → destination →
// how many times it was accepted. For field mapping the source is a header and the
// destination a field key; for enum mapping the source is a value and the destination an
// option value.
type Counts map[string]map[string]int

// History is what people accepted before in one environment: the current user's choices
// (Mine) and every other user's (Others). Build it with HistoryFor, or fill it from a store.
type History struct {
	Mine   Counts
	Others Counts
}

// Accepted is one accepted mapping as a store keeps it.
type Accepted struct {
	EnvironmentID string
	UserID        string
	Field         string // the destination field for an enum mapping; "" for a field mapping
	Source        string // the header or enum value as it appeared in the file
	Destination   string // the field key or option value chosen
	Count         int    // times accepted; 0 counts as 1
}

// HistoryFor collects the accepted mappings of one environment as seen by userID: field
// mappings when field is "", else the enum mappings of that destination field. Other
// environments are ignored.
func HistoryFor(all []Accepted, environmentID, userID, field string) History {
	h := History{Mine: Counts{}, Others: Counts{}}
	for _, a := range all {
		if a.EnvironmentID != environmentID || a.Field != field || a.Destination == "" {
			continue
		}
		c := h.Others
		if a.UserID == userID {
			c = h.Mine
		}
		src := Normalize(a.Source)
		if c[src] == nil {
			c[src] = map[string]int{}
		}
		c[src][a.Destination] += max(a.Count, 1)
	}
	return h
}

// historyConfidence is what n accepted mappings are worth on their own: one acceptance
// 0.89, three or more 0.97.
func historyConfidence(n int) float64 {
	return min(0.97, 0.85+0.04*float64(n))
}

// signal is the history evidence that normalised source src goes to destination dst: the
// current user's history at full weight, other users' at OtherUsersWeight, the larger of the
// two.
func (h History) signal(src, dst string) (float64, Reason) {
	mine, others := h.Mine[src][dst], h.Others[src][dst]
	var conf float64
	var reason Reason
	if mine > 0 {
		conf, reason = historyConfidence(mine), because(ReasonHistoryMine, fmt.Sprintf("you mapped this before (%d×)", mine), "count", itoa(mine))
	}
	if others > 0 {
		if c := OtherUsersWeight * historyConfidence(others); c > conf {
			conf, reason = c, because(ReasonHistoryOthers, fmt.Sprintf("other users in this environment mapped this before (%d×, counted at 80%%)", others), "count", itoa(others))
		}
	}
	return conf, reason
}

// RuleKeys gives an assign rule of a program its history keys: the normalised source header
// and the destination field key; other rules are not history ("", "").
func RuleKeys(r *model.MappingRule) (source, destination string) {
	if r.Type != "assign" {
		return "", ""
	}
	var c struct {
		SourceField      string `json:"sourceField"`
		DestinationField string `json:"destinationField"`
	}
	_ = json.Unmarshal(r.Config, &c)
	return Normalize(c.SourceField), c.DestinationField
}
