package records

import "encoding/json"

// Row holds a record's values aligned with Schema.Rules; nil means the cell is empty. How a
// row is stored is the store's business.
type Row []json.RawMessage
