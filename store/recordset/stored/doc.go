// Package stored is the stored form of a sheet's records, shared by the record engine
// (package recordset) and its derived data (package tally):
//
//   - Sheet: a sheet prepared for record reads and writes — its schema compiled, its sheet
//     key, its column layout and the ids of its unique rules (sheet.go);
//   - a record's values as a JSON array by column position, and the kinds of value a row
//     holds (encoding.go);
//   - State: a record as the write path holds it, with its messages, the fields in error
//     and the unique rules it breaks (state.go);
//   - record keys (a sheet's records are one contiguous range) and the public record ids
//     derived from them (ids.go);
//   - the foreground clock that background builds wait on (foreground.go).
//
// It reads; it does not write: writes, with their transaction, stay in the engine.
package stored
