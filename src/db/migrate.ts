import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../paths.ts';
import type { Db } from './db.ts';

// Any fixed 64-bit number; every Mailroom process takes this lock before migrating.
const MIGRATION_LOCK_ID = 7_261_042_913;

export type Migration = { version: string; sql: string; checksum: string };

/** Ordered, forward-only SQL files: `migrations/0001_name.sql`. */
export function loadMigrations(directory = MIGRATIONS_DIR): Migration[] {
  return readdirSync(directory)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const sql = readFileSync(join(directory, file), 'utf8');
      return { version: file.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so processes starting
 * together on one PostgreSQL apply each migration exactly once and the others wait, then see it.
 */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Map((await tx.query<{ version: string; checksum: string }>('SELECT version, checksum FROM schema_migrations')).map((row) => [row.version, row.checksum]));
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.version);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new Error(`Migration ${migration.version} was changed after it was applied; add a new migration instead.`);
        continue;
      }
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)', [migration.version, migration.checksum]);
      appliedNow.push(migration.version);
    }
    return appliedNow;
  });
}

/** True when every migration on disk has been applied (used by GET /ready). */
export async function migrationsApplied(db: Db, migrations = loadMigrations()): Promise<boolean> {
  const rows = await db.query<{ version: string }>('SELECT version FROM schema_migrations').catch(() => []);
  const applied = new Set(rows.map((row) => row.version));
  return migrations.every((m) => applied.has(m.version));
}
