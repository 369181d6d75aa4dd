import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable, eventually, track, waitForExecution } from '../kit/workflows.ts';

describe('new executions are not held behind a batch of resumptions (docs/decisions/workflows.md, "Claim")', {
  skip: TEST_DATABASE_URL
    ? false
    : 'holding a contact row locked from outside the server needs a second connection to its database (the embedded one belongs to the server, which runs one transaction at a time); runs in the PostgreSQL and Citus passes',
}, () => {
  let server: TestServer;
  let locker: pg.Client | undefined;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await locker?.end();
    await server.close();
  });

  test('while a resumed UPDATE_CONTACT waits for a contact locked elsewhere, executions triggered meanwhile run their first steps; the held one completes once the lock goes', async () => {
    const project = await createProject(server.url);
    const followUp = await buildWorkflow(project.api, { name: 'Trial follow-up', eventName: 'trial.started' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
      { type: 'UPDATE_CONTACT', config: { data: { followedUp: true } } },
    ]);
    const welcome = await buildWorkflow(project.api, { name: 'Welcome', eventName: 'signed-up' }, [{ type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } }]);
    await enable(project.api, followUp.id);
    await enable(project.api, welcome.id);

    const held = (await track(project.publicApi, uniqueEmail('trial'), 'trial.started', { plan: 'team' })).contact;
    await waitForExecution(project.api, followUp.id, held, ['WAITING']);
    // Another session edits the contact and keeps its transaction open.
    locker = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM contacts WHERE project_id = $1 AND id = $2 FOR UPDATE', [project.id, held]);

    // The delay ends and a worker claims the execution (the claim commits on its own): its step
    // transaction then waits for the lock at UPDATE_CONTACT.
    await eventually(
      'the resumption claimed',
      async () => {
        const rows = await locker!.query("SELECT 1 FROM workflow_executions WHERE project_id = $1 AND contact_id = $2 AND status = 'WAITING' AND claim IS NOT NULL", [
          project.id,
          held,
        ]);
        return rows.rowCount === 1;
      },
      15_000,
    );

    const newcomers = [];
    for (let i = 0; i < 3; i++) newcomers.push((await track(project.publicApi, uniqueEmail('new'), 'signed-up', { source: 'ads' })).contact);
    for (const contact of newcomers) {
      const done = await waitForExecution(project.api, welcome.id, contact, ['COMPLETED', 'FAILED'], 15_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
      assert.equal((await project.api.get(`/contacts/${contact}`)).body.data.welcomed, true);
    }
    // The held execution did not get past the lock meanwhile.
    const waiting = await waitForExecution(project.api, followUp.id, held, ['WAITING', 'RUNNING', 'COMPLETED', 'FAILED']);
    assert.equal(waiting.status, 'WAITING');

    await locker.query('ROLLBACK');
    const resumed = await waitForExecution(project.api, followUp.id, held, ['COMPLETED', 'FAILED'], 15_000);
    assert.equal(resumed.status, 'COMPLETED', JSON.stringify(resumed));
    assert.equal((await project.api.get(`/contacts/${held}`)).body.data.followedUp, true);
  });
});
