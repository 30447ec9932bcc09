package webtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// AddRows is what an import does: rows added in batches, noted with the job.
func AddRows(ctx context.Context, e *Env, j *model.Job, sheetID string, n int) error {
	i := 0
	_, err := e.DB.InsertStream(ctx, sheetID, []string{"email"}, func() ([]json.RawMessage, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		return []json.RawMessage{json.RawMessage(fmt.Sprintf(`"row%d@x.io"`, i))}, nil
	}, 50, recordset.WriteOptions{Actor: jobs.WorkerActor, AccountID: j.AccountID, Job: j.ID})
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
