package recordset

import (
	"context"
	"errors"
	"testing"

	"github.com/sluice/sluice/store/recordset/tally"
)

// bothHalves reports the error that stopped the other half, not the other's cancellation
// (a tally gives up with errTallyOff, and its caller must see that to fall back to SQL).
func TestBothHalvesReportsTheCause(t *testing.T) {
	for range 20 {
		err := bothHalves(t.Context(), func(ctx context.Context, i int) error {
			if i == 1 {
				return tally.ErrOff
			}
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, tally.ErrOff) {
			t.Fatalf("got %v, want errTallyOff", err)
		}
	}
}
