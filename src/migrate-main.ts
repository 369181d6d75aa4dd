import { loadConfigOrExit } from './config.ts';
import { distributeForCitus } from './db/distribution.ts';
import { openDatabase } from './db/index.ts';
import { migrate } from './db/migrate.ts';

/**
 * `node dist/src/migrate-main.js`: applies the pending migrations (and, with
 * DATABASE_DISTRIBUTION=citus, distributes new tables), then exits. Every server process does the
 * same at start-up under an advisory lock, so this is optional: compose.yaml runs it once before
 * the api and worker services so that they start on a migrated database (docs/deploy.md).
 */
async function main() {
  const config = loadConfigOrExit();
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'the database is up to date');
    if (config.databaseDistribution === 'citus') {
      const distributed = await distributeForCitus(db);
      if (distributed.length) console.log(`distributed ${distributed.length} table(s)`);
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
