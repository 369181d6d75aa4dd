import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

export type { Db, Queryable, Row } from './db.ts';
export { copyText, queryOne } from './db.ts';

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite under DATA_DIR/pg. */
export async function openDatabase(config: Config): Promise<Db> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  return openPglite(join(config.dataDir, 'pg'));
}
