import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '../src/db/postgres.ts';
import { PACKAGE_ROOT } from '../src/paths.ts';
import { hotStatementPlans } from './plans.ts';
import type { DatabaseLabel } from './scenario.ts';

/**
 * Plans the hot statements on a bench database (bench/plans.ts) and writes them to
 * bench/plans/<db>.txt; returns the line `npm run bench` prints: each statement and, on Citus,
 * how it runs (router, multi-step or multi-shard; bench/plans.ts).
 */
export async function savePlans(db: DatabaseLabel, databaseUrl: string, projectId: string) {
  const database = openPostgres(databaseUrl);
  try {
    const plans = await hotStatementPlans(database, projectId, db === 'citus');
    const dir = join(PACKAGE_ROOT, 'bench', 'plans');
    mkdirSync(dir, { recursive: true });
    const text = plans.map((p) => `-- ${p.statement}${p.execution ? ` (${p.execution})` : ''}\n${p.sql}\n\n${p.plan}\n`).join('\n');
    writeFileSync(join(dir, `${db}.txt`), text);
    return { scenario: 'plans', db, file: `bench/plans/${db}.txt`, statements: plans.map((p) => ({ statement: p.statement, execution: p.execution })) };
  } finally {
    await database.close();
  }
}
