import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { PACKAGE_ROOT } from '../../src/paths.ts';

const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'mailroom-test');

function snapshotKey(): string {
  const hash = createHash('sha256');
  for (const m of loadMigrations()) hash.update(m.checksum);
  for (const pkg of ['@electric-sql/pglite', 'pg-boss']) {
    hash.update(readFileSync(join(PACKAGE_ROOT, 'node_modules', pkg, 'package.json')));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A migrated PGlite data directory (with the job-queue schema), made once per migration set and
 * copied for every test server: initdb costs seconds, a copy costs milliseconds.
 */
export async function pgliteSnapshot(): Promise<string> {
  const target = join(CACHE_DIR, `pglite-${snapshotKey()}`);
  if (existsSync(target)) return target;
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const db = await openPglite(building);
  await migrate(db);
  const queue = new JobQueue(db, pino({ level: 'silent' }));
  await queue.start({ work: false });
  await queue.stop(5);
  await db.close();
  try {
    renameSync(building, target);
  } catch {
    // Another test process finished the same snapshot first; theirs is identical.
    rmSync(building, { recursive: true, force: true });
  }
  return target;
}

const run = promisify(execFile);

/*
 * The system's cp and rm, not fs.cpSync and fs.rmSync: on the 1,265 files of a snapshot (41 MB)
 * they took 1.3 s and 2.8 s against cp's 0.4 s and rm's 0.1 s (2 cores, 2026-11-27), and every
 * test server makes one copy and removes it.
 */
export async function copySnapshotTo(directory: string): Promise<void> {
  await run('cp', ['-R', await pgliteSnapshot(), directory]);
}

/** Removes a test server's data directory (see copySnapshotTo). */
export async function removeTree(directory: string): Promise<void> {
  await run('rm', ['-rf', directory]);
}
