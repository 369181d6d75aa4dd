import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/index.ts';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { prepareEnvironment, startTestServer, type TestServer } from '../kit/server.ts';

describe('storage', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('int8 and numeric come back as JS numbers on this driver', async () => {
    const [row] = await server.deps.db.query<{ big: unknown; count: unknown; ratio: unknown }>(
      'SELECT 9007199254740991::int8 AS big, count(*) AS count, 1.25::numeric AS ratio FROM (VALUES (1), (2)) v(x)',
    );
    assert.equal(row.big, 9007199254740991);
    assert.equal(row.count, 2);
    assert.equal(row.ratio, 1.25);
  });

  test('jsonb and timestamps round-trip the same way on both drivers', async () => {
    const [row] = await server.deps.db.query<{ doc: unknown; at: unknown }>("SELECT $1::jsonb AS doc, '2026-01-02T03:04:05Z'::timestamptz AS at", [
      JSON.stringify({ a: [1, 'two'], b: null }),
    ]);
    assert.deepEqual(row.doc, { a: [1, 'two'], b: null });
    assert.ok(row.at instanceof Date);
    assert.equal((row.at as Date).toISOString(), '2026-01-02T03:04:05.000Z');
  });

  test('a transaction rolls back as a whole when its work throws', async () => {
    const db = server.deps.db;
    await db.exec('CREATE TABLE IF NOT EXISTS storage_probe (n int)');
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO storage_probe VALUES (1)');
        throw new Error('boom');
      }),
      /boom/,
    );
    const rows = await db.query('SELECT * FROM storage_probe');
    assert.equal(rows.length, 0);
    await db.exec('DROP TABLE storage_probe');
  });

  test('migrations are recorded once and re-running them applies nothing', async () => {
    const rows = await server.deps.db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(
      rows.map((r) => r.version),
      loadMigrations().map((m) => m.version),
    );
    assert.deepEqual(await migrate(server.deps.db), []);
  });
});

// Several processes migrating one PostgreSQL at the same moment needs a shared PostgreSQL server,
// so this block exists only in the TEST_DATABASE_URL pass.
if (process.env.TEST_DATABASE_URL) {
  describe('storage on a shared PostgreSQL', () => {
    test('four connections migrating a fresh database at once apply each migration exactly once', async () => {
      const { env, cleanup } = await prepareEnvironment({}, { emptyDatabase: true });
      const config = loadConfig(env);
      const dbs = await Promise.all([1, 2, 3, 4].map(() => openDatabase(config)));
      try {
        const results = await Promise.all(dbs.map((db) => migrate(db)));
        const appliedCounts = results.map((applied) => applied.length).sort();
        assert.deepEqual(appliedCounts, [0, 0, 0, loadMigrations().length]);
        const [row] = await dbs[0].query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
        assert.equal(row.n, loadMigrations().length);
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
        await cleanup();
      }
    });
  });
}
