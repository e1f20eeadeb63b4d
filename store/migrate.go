package store

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/migrations"
)

// migrate applies the migration files not yet recorded, each in its own transaction
// together with its record, so a failed migration leaves the schema as it was.
func migrate(ctx context.Context, db *sqlx.DB) error {
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`
	if _, err := db.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := migrateFile(ctx, db, name); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

func migrateFile(ctx context.Context, db *sqlx.DB, name string) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name); err != nil {
		return err
	}
	if n != 0 {
		return nil
	}
	body, err := fs.ReadFile(migrations.FS, name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`,
		name, time.Now().UnixNano()); err != nil {
		return err
	}
	return tx.Commit()
}
