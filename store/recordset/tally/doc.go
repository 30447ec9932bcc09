// Package tally counts and orders the values of a big sheet in Go rather than in SQL.
//
// SQLite groups by sorting: the first page of a
// field with a value per record took 0.76 s at 1,000,000 records (0.28 s taking the values
// out of the stored arrays with ->, the rest sorting a million strings); PostgreSQL took 1.3-1.5
// s (grouping, and ordering a million groups by value). On a big sheet the values are
// tallied here instead: the two halves of the sheet's keys are read at once, each a slice of
// keys per query as one row of the slice's values joined (Query: 50,000 records a row
// rather than a row each, which through the driver cost more than the database's read of
// it); each half hashes its values (maphash) and sorts the hashes (radix); the two sorted
// halves are walked together, counting equal values (values of equal hash compared byte for
// byte, so a collision costs time, never a wrong count). A page of the most frequent is then
// chosen by a bounded selection (Top) rather than by sorting every value, comparing a
// prefix of each value's order taken while it was read (the values, read again in hash order
// from all over memory, cost more than the rest of the tally). 1,000,000 values of a field
// with a value per record: 0.17-0.2 s on SQLite, 0.10-0.13 s on PostgreSQL (tally packs). A
// tally holds 24 bytes a record and its values (60 MB a million e-mails): tallies take turns,
// and a sheet of more than MaxRecords records is counted by the database's GROUP BY, which
// spills to disk.
//
// The record engine (package recordset) decides when a tally answers and reads the sheet
// through it: this package knows queries, slices of record keys and values, not sheets or
// transactions.
package tally
