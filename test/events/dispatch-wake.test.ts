import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { createTestDatabase, prepareEnvironment, startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable, eventually, track } from '../kit/workflows.ts';

/** Milliseconds from the stored event to the start of its execution's first step (the database's clock), once there is one. */
async function firstStepLag(server: Pick<RunningServer, 'deps'>, project: TestProject, contactId: string): Promise<number | undefined> {
  const rows = await server.deps.db.query<{ lag: number }>(
    `SELECT extract(epoch FROM s.started_at - e.created_at) * 1000 AS lag
     FROM workflow_executions x
     JOIN events e ON e.project_id = x.project_id AND e.id = x.event_id
     JOIN workflow_execution_steps s ON s.project_id = x.project_id AND s.execution_id = x.id AND s.step_type = 'UPDATE_CONTACT'
     WHERE x.project_id = $1 AND x.contact_id = $2`,
    [project.id, contactId],
  );
  return rows[0] ? Number(rows[0].lag) : undefined;
}

// The writer wakes its own process's drain (docs/decisions/contacts-and-events.md, "Recorded events
// and triggers"), instead of a queued job that the queue's worker fetches within its 1 s poll.
describe('the events drain is woken in the process that recorded the events', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  test('events tracked one after another each start their workflow, whose first step runs once', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'woken' }, [{ type: 'UPDATE_CONTACT', config: { data: { woken: true } } }]);
    await enable(project.api, flow.id);
    // How soon is measured by the workflow-run benchmark (bench/README.md), not asserted here.
    for (let i = 0; i < 30; i++) {
      const { contact } = await track(project.publicApi, uniqueEmail('woken'), 'woken');
      const lag = await eventually('the first step', () => firstStepLag(server, project, contact), 20_000, 10);
      assert.ok(Number.isFinite(lag) && lag >= 0, `event ${i}: first step after ${lag} ms`);
    }
  });

  test('a burst of tracked events: each starts one execution, none is dispatched twice', async () => {
    const project = await createProject(server.url);
    // Re-entry allowed: an event handed to the triggers twice would start a second execution.
    const flow = await buildWorkflow(project.api, { eventName: 'burst', allowReentry: true }, [{ type: 'UPDATE_CONTACT', config: { data: { burst: true } } }]);
    await enable(project.api, flow.id);
    const emails = Array.from({ length: 200 }, () => uniqueEmail('burst'));
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < emails.length) await track(project.publicApi, emails[next++]!, 'burst');
      }),
    );
    const count = async () => {
      const rows = await server.deps.db.query<{ executions: number; contacts: number; completed: number }>(
        `SELECT count(*)::int AS executions, count(DISTINCT contact_id)::int AS contacts, count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed
         FROM workflow_executions WHERE project_id = $1 AND workflow_id = $2`,
        [project.id, flow.id],
      );
      return rows[0]!;
    };
    await eventually('every execution completed', async () => (await count()).completed >= emails.length, 30_000);
    // Longer than the drain's tick: a row dispatched again would have started its execution by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.deepEqual(await count(), { executions: 200, contacts: 200, completed: 200 });
    const left = await server.deps.db.query('SELECT 1 FROM event_dispatch');
    assert.equal(left.length, 0);
  });
});

describe('an API-only process queues the drain for the workers', {
  skip: TEST_DATABASE_URL ? false : 'an API and a worker process need a shared PostgreSQL (the embedded database belongs to one process); runs in the PostgreSQL and Citus passes',
}, () => {
  test('an event tracked through a ROLE=api process starts its workflow in the ROLE=worker process', async () => {
    const database = await createTestDatabase();
    const shared = { DATABASE_URL: database.url, SECRETS_KEY: randomBytes(32).toString('hex') };
    const apiEnv = await prepareEnvironment({ ...shared, ROLE: 'api' });
    const workerEnv = await prepareEnvironment({ ...shared, ROLE: 'worker', SESSION_SECRET: apiEnv.env.SESSION_SECRET! });
    let api: RunningServer | undefined;
    let worker: RunningServer | undefined;
    try {
      api = await startServer(loadConfig(apiEnv.env));
      worker = await startServer(loadConfig(workerEnv.env));
      assert.equal(api.deps.queue.works, false);
      const project = await createProject(api.url);
      const flow = await buildWorkflow(project.api, { eventName: 'queued' }, [{ type: 'UPDATE_CONTACT', config: { data: { queued: true } } }]);
      await enable(project.api, flow.id);
      for (let i = 0; i < 3; i++) {
        const { contact } = await track(project.publicApi, uniqueEmail('queued'), 'queued');
        await eventually('the first step', () => firstStepLag(worker!, project, contact), 20_000);
      }
    } finally {
      await api?.close();
      await worker?.close();
      await apiEnv.cleanup();
      await workerEnv.cleanup();
      await database.drop();
    }
  });
});
