// Package migrations holds restyplane's database schema as numbered SQL files. A file is
// never edited once released; a change to the schema is a new file at the end.
package migrations

import "embed"

// FS holds the migration files, named NNN_description.sql and applied in name order.
//
//go:embed *.sql
var FS embed.FS
