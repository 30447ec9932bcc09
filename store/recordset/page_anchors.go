package recordset

import (
	"database/sql"
	"errors"
	"sync"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset/stored"
)

// anchorStep is how many records lie between two page anchors.
const anchorStep = 10000

// anchorSheets caps how many sheets' anchors a node keeps.
const anchorSheets = 256

// pageAnchors keep, per sheet, the key of every anchorStep-th record in key order, so a deep
// page of the whole sheet starts from the nearest anchor instead of skipping every record
// before it (OFFSET 499,900 for page 5,000 of 100 walks half a million index entries). They
// are valid while the sheet's shape (record_sheets.shape, changed by every insert and
// delete, read with the sheet) is the one they were found at; edits leave positions alone.
// Each node keeps its own; the shape comes from the database, so writes on other nodes
// invalidate them too.
type pageAnchors struct {
	mu     sync.Mutex
	sheets map[int64]*sheetAnchors
}

type sheetAnchors struct {
	mu    sync.Mutex
	shape int64
	rids  []int64 // rids[i] is the key of the record at position (i+1)*anchorStep
}

func (p *pageAnchors) of(sk int64) *sheetAnchors {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sheets == nil {
		p.sheets = map[int64]*sheetAnchors{}
	}
	a := p.sheets[sk]
	if a == nil {
		if len(p.sheets) >= anchorSheets {
			for k := range p.sheets { // any one: anchors are found again on demand
				delete(p.sheets, k)
				break
			}
		}
		a = &sheetAnchors{shape: -1}
		p.sheets[sk] = a
	}
	return a
}

// anchor returns the key of the record at position k*anchorStep (k ≥ 1) of the sheet in key
// order, finding the anchors up to it that are not known yet, one step each; ok is false
// when the sheet has fewer records.
func (rc *readCtx) anchor(rs *stored.Sheet, k int) (rid int64, ok bool, err error) {
	a := rc.anchors.of(rs.SK)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shape != rs.Shape {
		a.shape, a.rids = rs.Shape, nil
	}
	lo, hi := stored.RIDRange(rs.SK)
	for len(a.rids) < k {
		from := lo
		if n := len(a.rids); n > 0 {
			from = a.rids[n-1]
		}
		var next int64
		err := rc.q.QueryRowContext(rc.ctx, `SELECT r.rid FROM records r WHERE r.rid BETWEEN ? AND ? ORDER BY r.rid LIMIT 1 OFFSET ?`, from, hi, anchorStep).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, errs.Wrap(err, "find page anchor")
		}
		a.rids = append(a.rids, next)
	}
	return a.rids[k-1], true, nil
}
