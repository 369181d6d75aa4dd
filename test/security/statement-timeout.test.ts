import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestScope } from '../../src/db/db.ts';
import { translateDbError } from '../../src/db/errors.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createProject } from '../kit/accounts.ts';
import { createTestDatabase, startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

describe('statements of an HTTP request run in requestScope (time-limited on PostgreSQL)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('the statements a request runs are in requestScope, and the scope ends with the request', async () => {
    const project = await createProject(server.url);
    const db = server.deps.db as { query: (...args: never[]) => Promise<unknown>; transaction: (...args: never[]) => Promise<unknown> };
    const { query, transaction } = db;
    // The worker polls in the same process (ROLE=all): its statements are outside requestScope.
    const seen: Array<{ sql: string; inScope: boolean }> = [];
    db.query = (...args) => (seen.push({ sql: String(args[0]), inScope: requestScope.getStore() === true }), query.apply(server.deps.db, args));
    db.transaction = (...args) => (seen.push({ sql: 'BEGIN', inScope: requestScope.getStore() === true }), transaction.apply(server.deps.db, args));
    try {
      const condition = { logic: 'OR', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'example' }] }] };
      assert.equal((await project.api.post('/segments', { name: 'Readers', condition })).status, 201);
      assert.equal((await project.publicApi.post('/v1/track', { email: 'reader@example.com', event: 'article-read', data: { title: '読書' } })).status, 200);
      assert.equal((await project.api.get('/templates')).status, 200);
    } finally {
      db.query = query;
      db.transaction = transaction;
    }
    const ofRequests = seen.filter((s) => /\b(segments|templates)\b/i.test(s.sql));
    assert.ok(ofRequests.length >= 2, JSON.stringify(seen.map((s) => s.sql.slice(0, 60))));
    assert.deepEqual(
      ofRequests.filter((s) => !s.inScope),
      [],
    );
    assert.equal(requestScope.getStore(), undefined);
  });

  test(`PostgreSQL cancels a request's statement after the statement timeout; background statements are not limited${TEST_DATABASE_URL ? '' : ' (PostgreSQL: TEST_DATABASE_URL)'}`, async () => {
    if (!TEST_DATABASE_URL) {
      // The embedded database has no statement timeout: its bounds are the input limits
      // (input-boundary.test.ts). What can be checked here is that the adapter is not PostgreSQL.
      assert.equal(server.deps.db.kind, 'pglite');
      return;
    }
    const database = await createTestDatabase();
    const db = openPostgres(database.url, { statementTimeoutMs: 300 });
    try {
      const started = Date.now();
      const error = await requestScope
        .run(true, () => db.query('SELECT pg_sleep(3)'))
        .then(
          () => assert.fail('the statement was not cancelled'),
          (e: unknown) => e,
        );
      assert.ok(Date.now() - started < 2500, `${Date.now() - started} ms`);
      const appError = translateDbError(error);
      assert.equal(appError?.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(await db.query('SELECT 1 AS done FROM pg_sleep(0.5)'), [{ done: 1 }]);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
