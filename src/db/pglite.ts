import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.ts';

const parsers = { [types.INT8]: (v: string) => Number(v), [types.NUMERIC]: (v: string) => Number(v) };

function wrap(handle: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = await handle.query<T>(text, params as unknown[] | undefined);
      return result.rows;
    },
    async exec(text: string) {
      await handle.exec(text);
    },
    // PGlite reads COPY … FROM '/dev/blob' from the query's `blob` option.
    async copyFrom(table: string, columns: readonly string[], rows: string) {
      await handle.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([rows]) });
    },
  };
}

export interface PgliteDb extends Db {
  readonly pglite: PGlite;
}

/** Opens (or creates) the embedded database in `directory`. */
export async function openPglite(directory: string): Promise<PgliteDb> {
  mkdirSync(directory, { recursive: true });
  const pglite = await PGlite.create({ dataDir: directory, parsers });
  const root = wrap(pglite);
  return {
    kind: 'pglite',
    pglite,
    query: root.query,
    exec: root.exec,
    copyFrom: root.copyFrom,
    transaction: (work) => pglite.transaction((tx) => work(wrap(tx))),
    close: () => pglite.close(),
  };
}
