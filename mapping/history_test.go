package mapping_test

import (
	"math"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

// ledger has fields a cryptic header ("Kto-Ref") says nothing about.
func ledger() model.SheetConfig {
	return model.SheetConfig{Fields: []model.Field{
		{Key: "cost_center", Label: "Cost Center"}, {Key: "project", Label: "Project"}, {Key: "email", Label: "Email"},
	}}
}

func counts(src, dst string, n int) mapping.Counts {
	return mapping.Counts{mapping.Normalize(src): {dst: n}}
}

func TestOtherUsersHistoryCountsEightyPercent(t *testing.T) {
	col := mapping.Column{Header: "Kto-Ref"}
	none := suggestOne(t, col, ledger(), mapping.History{})
	mine := suggestOne(t, col, ledger(), mapping.History{Mine: counts("Kto-Ref", "cost_center", 1)})
	others := suggestOne(t, col, ledger(), mapping.History{Others: counts("Kto-Ref", "cost_center", 1)})
	if none.Destination != "" {
		t.Fatalf("without history: got %q, want nothing for a cryptic header", none.Destination)
	}
	if mine.Destination != "cost_center" || others.Destination != "cost_center" {
		t.Fatalf("got %q (mine) and %q (others), want cost_center from either history", mine.Destination, others.Destination)
	}
	if want := mine.Confidence * mapping.OtherUsersWeight; math.Abs(others.Confidence-want) > 0.001 {
		t.Errorf("others' history alone: got %v, want 80%% of the current user's %v = %v", others.Confidence, mine.Confidence, want)
	}
	if !mine.AutoApply || !others.AutoApply {
		t.Errorf("got AutoApply %v / %v, want history alone to reach the default threshold", mine.AutoApply, others.AutoApply)
	}
}

func TestTheWeightDecidesBetweenUsers(t *testing.T) {
	// Other users chose project three times, the current user cost_center once. Counted
	// equally, three acceptances (0.97) would beat one (0.89); at 80% they weigh 0.78.
	hist := mapping.History{Mine: counts("Kto-Ref", "cost_center", 1), Others: counts("Kto-Ref", "project", 3)}
	got := suggestOne(t, mapping.Column{Header: "Kto-Ref"}, ledger(), hist)
	if got.Destination != "cost_center" {
		t.Fatalf("got %q (%v), want the current user's cost_center", got.Destination, got.Reasons)
	}
	if len(got.Alternatives) == 0 || got.Alternatives[0].Field != "project" {
		t.Errorf("got alternatives %+v, want others' choice offered next", got.Alternatives)
	}
}

func TestOthersHistoryLosesToAStrongSignal(t *testing.T) {
	hist := mapping.History{Others: counts("E-mail", "project", 1)}
	got := suggestOne(t, mapping.Column{Header: "E-mail", Samples: []string{"ann@example.com"}}, ledger(), hist)
	if got.Destination != "email" {
		t.Fatalf("got %q, want email: other users' single choice should not beat the header and the samples", got.Destination)
	}
}

func TestHistoryConfirmsButNeverCertain(t *testing.T) {
	hist := mapping.History{Mine: counts("Cost Center", "cost_center", 100)}
	got := suggestOne(t, mapping.Column{Header: "Cost Center"}, ledger(), hist)
	if got.Confidence != mapping.MaxConfidence {
		t.Errorf("got %v, want the %v cap", got.Confidence, mapping.MaxConfidence)
	}
}

func TestHistoryFor(t *testing.T) {
	all := []mapping.Accepted{
		{EnvironmentID: "env1", UserID: "me", Source: "Kto Ref", Destination: "cost_center", Count: 2},
		{EnvironmentID: "env1", UserID: "me", Source: "kto-ref", Destination: "cost_center"},
		{EnvironmentID: "env1", UserID: "you", Source: "KTO_REF", Destination: "project"},
		{EnvironmentID: "env2", UserID: "me", Source: "Kto Ref", Destination: "email"},
		{EnvironmentID: "env1", UserID: "me", Field: "status", Source: "Ja", Destination: "yes"},
	}
	h := mapping.HistoryFor(all, "env1", "me", "")
	if got := h.Mine["kto ref"]["cost_center"]; got != 3 {
		t.Errorf("mine: got %d, want 3 (spellings normalised, missing count as 1)", got)
	}
	if got := h.Others["kto ref"]["project"]; got != 1 {
		t.Errorf("others: got %d, want 1", got)
	}
	if got := h.Mine["kto ref"]["email"]; got != 0 {
		t.Errorf("another environment leaked in: got %d, want 0", got)
	}
	if got := mapping.HistoryFor(all, "env1", "me", "status").Mine["ja"]["yes"]; got != 1 {
		t.Errorf("enum history of status: got %d, want 1", got)
	}
}
