package ingest

import (
	"cmp"
	"context"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// SuggestSheet runs the suggestion engine for mapping src onto dst as actor sees it: the
// source's first records as samples, the environment's accepted mappings as history. It
// returns the columns it read (one per source field, in order) and the engine's plan.
func (s *Service) SuggestSheet(ctx context.Context, accountID, envID, actor string, src, dst *model.Sheet) ([]mapping.Column, mapping.Plan, error) {
	cols := make([]mapping.Column, len(src.Config.Fields))
	keys := make([]string, len(cols))
	for i, f := range src.Config.Fields {
		cols[i] = mapping.Column{Header: cmp.Or(f.Label, f.Key)}
		keys[i] = mapping.Normalize(cols[i].Header)
	}
	if err := s.samples(ctx, accountID, src, cols); err != nil {
		return nil, mapping.Plan{}, err
	}
	mine, others, err := s.DB.MappingHistory(ctx, envID, actor, keys)
	if err != nil {
		return nil, mapping.Plan{}, err
	}
	return cols, mapping.Suggest(cols, dst.Config, mapping.History{Mine: mine, Others: others}, mapping.Options{}), nil
}

// distinctScan is how many records DistinctValues reads at most.
const distinctScan = 5000

// DistinctValues returns up to limit distinct non-empty texts of one field, in the order
// they first appear among the sheet's first records (for enum value mapping).
func (s *Service) DistinctValues(ctx context.Context, accountID, sheetID, key string, limit int) ([]string, error) {
	recs, _, err := s.DB.GetRecords(ctx, accountID, sheetID, recordset.RecordQuery{Page: model.Page{Size: distinctScan, Number: 1}}, false)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		for _, c := range r.Cells {
			if c.Key != key {
				continue
			}
			if v := CellText(c.Value); v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
				if len(out) == limit {
					return out, nil
				}
			}
		}
	}
	return out, nil
}
