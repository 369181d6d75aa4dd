import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { buildWorkflow, connect, enable, executionsOf, startReceiver, track, waitForExecution } from '../kit/workflows.ts';

type Version = {
  version: number;
  createdBy: string | null;
  changes: string[];
  steps: Array<{ id: string; type: string; config: Record<string, unknown> }>;
  executions: { running: number; waiting: number };
};

async function contactData(project: TestProject, contactId: string) {
  const res = await project.api.get(`/contacts/${contactId}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data as Record<string, unknown>;
}

describe('workflow versions and dry run (docs/workflow-versions.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  test('a draft is edited in place; once enabled every graph change makes a version, and names, triggers and re-entry make none', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'signed-up' }, [{ type: 'DELAY', config: { amount: 1, unit: 'hours' } }]);
    const draft = await project.api.get(`/workflows/${flow.id}`);
    assert.equal(draft.body.version, 1, 'building a disabled workflow nobody ran keeps version 1');
    await enable(project.api, flow.id);
    assert.equal((await project.api.patch(`/workflows/${flow.id}`, { name: 'Onboarding — 新規登録', allowReentry: true })).body.version, 1);

    const exit = await project.api.post(`/workflows/${flow.id}/steps`, { type: 'EXIT', name: 'Done', config: { reason: 'finished onboarding' } });
    assert.equal(exit.status, 201, exit.text);
    await connect(project.api, flow.id, flow.stepIds[0]!, exit.body.id);
    const patched = await project.api.patch(`/workflows/${flow.id}/steps/${flow.stepIds[0]}`, { config: { amount: 2, unit: 'days' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await project.api.get(`/workflows/${flow.id}`)).body.version, 4);

    const versions = await project.api.get(`/workflows/${flow.id}/versions`);
    assert.equal(versions.status, 200, versions.text);
    const data = versions.body.data as Version[];
    assert.deepEqual(
      data.map((v) => v.version),
      [4, 3, 2, 1],
    );
    assert.deepEqual(data[0]!.changes, ['Changed DELAY']);
    assert.deepEqual(data[1]!.changes, ['Connected DELAY → EXIT "Done"']);
    assert.deepEqual(data[2]!.changes, ['Added EXIT "Done"']);
    assert.deepEqual(data[3]!.changes, ['Created']);
    assert.equal(data[0]!.createdBy, 'API key');
    assert.deepEqual(data[0]!.steps.find((s) => s.type === 'DELAY')!.config, { amount: 2, unit: 'days' });
    assert.deepEqual(data[2]!.steps.find((s) => s.type === 'DELAY')!.config, { amount: 1, unit: 'hours' }, 'an older version keeps its graph');

    // A dashboard user is named by their email.
    await project.dashboard.patch(`/workflows/${flow.id}/steps/${exit.body.id}`, { config: { reason: 'welcome series over' } });
    const byUser = (await project.dashboard.get(`/workflows/${flow.id}/versions`)).body.data[0] as Version & { createdBy: string };
    assert.match(byUser.createdBy, /@/);
    // A step inserted on an edge is one change: one version, and the edge split around it.
    const edge = (await project.api.get(`/workflows/${flow.id}`)).body.transitions.find((t: { toStepId: string }) => t.toStepId === exit.body.id);
    const inserted = await project.api.post(`/workflows/${flow.id}/steps`, { type: 'UPDATE_CONTACT', config: { data: { onboarded: true } }, insertOn: edge.id });
    assert.equal(inserted.status, 201, inserted.text);
    const afterInsert = (await project.api.get(`/workflows/${flow.id}`)).body;
    assert.equal(afterInsert.version, 6);
    assert.deepEqual(
      afterInsert.transitions.map((t: { fromStepId: string; toStepId: string }) => [t.fromStepId, t.toStepId]).sort(),
      [
        [flow.stepIds[0], inserted.body.id],
        [flow.triggerId, flow.stepIds[0]],
        [inserted.body.id, exit.body.id],
      ].sort(),
    );
    const refused = await project.api.post(`/workflows/${flow.id}/steps`, { type: 'DELAY', config: { amount: 1, unit: 'days' }, after: { stepId: exit.body.id } });
    assert.equal(refused.status, 400, 'nothing leaves an EXIT');
    assert.equal((await project.api.get(`/workflows/${flow.id}`)).body.steps.length, 4, 'a refused step is not kept');
    assert.equal((await project.api.get(`/workflows/${randomUUID()}/versions`)).status, 404);
    assert.equal((await project.api.post(`/workflows/${flow.id}/versions/99/restore`)).status, 404);
  });

  test('a contact waiting on version 1 finishes on it while a new contact takes version 2; restore brings version 1 back as the newest', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'ordered', allowReentry: true }, [
      // Waiting for an event, not a timer: the contact surely still waits while the graph changes.
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'paid' } },
      { type: 'UPDATE_CONTACT', name: 'Mark', config: { data: { journey: 'first draft' } } },
    ]);
    await enable(project.api, flow.id);
    const early = uniqueEmail('early');
    const earlyContact = (await track(project.publicApi, early, 'ordered')).contact;
    const waiting = await waitForExecution(project.api, flow.id, earlyContact, ['WAITING']);
    assert.equal(waiting.workflowVersion, 1);

    // While it waits: an UPDATE_CONTACT inserted after the DELAY, and the old one's value changed.
    const tag = await project.api.post(`/workflows/${flow.id}/steps`, { type: 'UPDATE_CONTACT', name: 'Tag', config: { data: { tagged: 'はい' } } });
    const edges = (await project.api.get(`/workflows/${flow.id}`)).body.transitions as Array<{ id: string; fromStepId: string }>;
    const delayToMark = edges.find((e) => e.fromStepId === flow.stepIds[0])!;
    assert.equal((await project.api.delete(`/workflows/${flow.id}/transitions/${delayToMark.id}`)).status, 204);
    await connect(project.api, flow.id, flow.stepIds[0]!, tag.body.id);
    await connect(project.api, flow.id, tag.body.id, flow.stepIds[1]!);
    await project.api.patch(`/workflows/${flow.id}/steps/${flow.stepIds[1]}`, { config: { data: { journey: 'second draft' } } });
    const newest = (await project.api.get(`/workflows/${flow.id}`)).body.version as number;
    assert.equal(newest, 6);
    const listed = (await project.api.get(`/workflows/${flow.id}/versions`)).body.data as Version[];
    assert.deepEqual(listed.find((v) => v.version === 1)!.executions, { running: 0, waiting: 1 });

    const late = uniqueEmail('late');
    const lateContact = (await track(project.publicApi, late, 'ordered')).contact;
    await waitForExecution(project.api, flow.id, lateContact, ['WAITING']);
    await track(project.publicApi, early, 'paid');
    await track(project.publicApi, late, 'paid');

    const earlyDone = await waitForExecution(project.api, flow.id, earlyContact, ['COMPLETED', 'FAILED']);
    assert.equal(earlyDone.status, 'COMPLETED', earlyDone.error);
    assert.equal(earlyDone.workflowVersion, 1);
    assert.deepEqual(await contactData(project, earlyContact), { journey: 'first draft' }, 'the waiting contact ran version 1 to its end');
    const lateDone = await waitForExecution(project.api, flow.id, lateContact, ['COMPLETED', 'FAILED']);
    assert.equal(lateDone.status, 'COMPLETED', lateDone.error);
    assert.equal(lateDone.workflowVersion, newest);
    assert.deepEqual(await contactData(project, lateContact), { journey: 'second draft', tagged: 'はい' });
    assert.deepEqual(
      lateDone.steps.map((s: { type: string }) => s.type),
      ['TRIGGER', 'WAIT_FOR_EVENT', 'UPDATE_CONTACT', 'UPDATE_CONTACT'],
    );

    const restored = await project.api.post(`/workflows/${flow.id}/versions/1/restore`);
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.version, newest + 1);
    assert.deepEqual(restored.body.steps.map((s: { type: string }) => s.type).sort(), ['TRIGGER', 'UPDATE_CONTACT', 'WAIT_FOR_EVENT']);
    assert.deepEqual(restored.body.steps.find((s: { type: string }) => s.type === 'UPDATE_CONTACT').config, { data: { journey: 'first draft' } });
    const again = uniqueEmail('again');
    const againContact = (await track(project.publicApi, again, 'ordered')).contact;
    await waitForExecution(project.api, flow.id, againContact, ['WAITING']);
    await track(project.publicApi, again, 'paid');
    const againDone = await waitForExecution(project.api, flow.id, againContact, ['COMPLETED', 'FAILED']);
    assert.equal(againDone.workflowVersion, newest + 1);
    assert.deepEqual(await contactData(project, againContact), { journey: 'first draft' });
    assert.equal((await executionsOf(project.api, flow.id)).length, 3);
  });

  test('a dry run answers the path with each decision and why, and sends, calls, writes and records nothing', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const tpl = await project.api.post('/templates', {
      name: 'Welcome',
      subject: 'Bienvenue {{ data.firstName }} — your {{ event.plan }} plan',
      body: '<p>Hello</p><ul><li>one</li><li>two</li></ul>',
      from: `team@${domain.domain}`,
    });
    assert.equal(tpl.status, 201, tpl.text);
    const receiver = await startReceiver();
    try {
      const flow = await buildWorkflow(project.api, { eventName: 'subscribed' }, [
        { type: 'UPDATE_CONTACT', config: { data: { stage: 'trial' } } },
        { type: 'CONDITION', config: { field: 'data.stage', operator: 'equals', value: 'trial' } },
      ]);
      const [, condition] = flow.stepIds as [string, string];
      const wait = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'WAIT_FOR_EVENT', config: { eventName: 'activated', timeoutSeconds: 86400 } })).body.id;
      const send = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } })).body.id;
      const hook = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'WEBHOOK', config: { url: `${receiver.url}/crm/{{ data.firstName }}`, method: 'PUT' } })).body.id;
      const exit = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'EXIT', config: { reason: 'not a trial' } })).body.id;
      await connect(project.api, flow.id, condition, wait, 'yes');
      await connect(project.api, flow.id, condition, exit, 'no');
      await connect(project.api, flow.id, wait, send, 'event');
      await connect(project.api, flow.id, wait, hook, 'timeout');
      await connect(project.api, flow.id, send, hook);

      const email = uniqueEmail('dry');
      const created = await project.api.post('/contacts', { email, data: { firstName: 'Zoë' } });
      assert.equal(created.status, 201, created.text);
      const contactId = created.body.id as string;

      // The workflow is disabled: a dry run still works.
      const run = await project.api.post(`/workflows/${flow.id}/simulate`, { contactId, event: { name: 'activated', data: { plan: 'Pro' } } });
      assert.equal(run.status, 200, run.text);
      assert.equal(run.body.result, 'COMPLETED');
      assert.deepEqual(
        run.body.path.map((p: { type: string; outcome: string }) => `${p.type}:${p.outcome}`),
        ['TRIGGER:next', 'UPDATE_CONTACT:next', 'CONDITION:yes', 'WAIT_FOR_EVENT:event', 'SEND_EMAIL:next', 'WEBHOOK:end'],
      );
      const [, update, decided, waited, sent, called] = run.body.path as Array<{ detail: string }>;
      assert.match(update!.detail, /sets stage/);
      assert.match(decided!.detail, /data\.stage is "trial".*so yes/);
      assert.match(waited!.detail, /activated/);
      assert.equal(sent!.detail, `Would send "Bienvenue Zoë — your Pro plan" to ${email}.`);
      assert.equal(called!.detail, `Would call PUT ${receiver.url}/crm/Zoë.`);

      const noEvent = await project.api.post(`/workflows/${flow.id}/simulate`, { contactId });
      assert.deepEqual(
        noEvent.body.path.map((p: { outcome: string }) => p.outcome),
        ['next', 'next', 'yes', 'timeout', 'end'],
      );

      // Nothing happened: no call, no email, no execution, no event, the contact unchanged.
      assert.equal(receiver.requests.length, 0);
      const emails = await project.api.get(`/contacts/${contactId}/emails`);
      assert.equal(emails.status, 200, emails.text);
      assert.equal(emails.body.data.length, 0);
      assert.equal((await executionsOf(project.api, flow.id)).length, 0);
      assert.deepEqual(await contactData(project, contactId), { firstName: 'Zoë' });

      // The condition's other way, once the contact's own data decides it.
      await project.api.patch(`/workflows/${flow.id}/steps/${flow.stepIds[0]}`, { config: { data: { stage: 'paid' } } });
      const other = await project.api.post(`/workflows/${flow.id}/simulate`, { contactId });
      assert.equal(other.body.result, 'EXITED');
      assert.match(other.body.path[2].detail, /data\.stage is "paid".*so no/);
      assert.equal(other.body.path.at(-1).detail, 'Exits: not a trial');

      assert.equal((await project.api.post(`/workflows/${flow.id}/simulate`, { contactId: randomUUID() })).status, 404);
      assert.equal((await project.api.post(`/workflows/${randomUUID()}/simulate`, { contactId })).status, 404);
    } finally {
      await receiver.close();
    }
  });

  test('the canvas counts: executions waiting at each step are counted by the server over all of them, and the list filters by contact', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'trial-started' }, [
      { type: 'WAIT_FOR_EVENT', name: 'Wait for a purchase', config: { eventName: 'purchased' } },
      { type: 'EXIT', name: 'Bought', config: { reason: 'converted' } },
    ]);
    await enable(project.api, flow.id);
    const names = ['Åsa', 'Björn', 'Chloé', '李'];
    const emails = names.map((_, i) => uniqueEmail(`trial${i}`));
    const tracked = [];
    for (const [i, email] of emails.entries()) tracked.push(await track(project.publicApi, email, 'trial-started', { plan: 'pro', firstName: names[i] }));
    for (const { contact } of tracked) await waitForExecution(project.api, flow.id, contact, ['WAITING']);
    // One contact goes on and leaves the wait: three stay.
    await track(project.publicApi, emails[0]!, 'purchased');
    await waitForExecution(project.api, flow.id, tracked[0]!.contact, ['EXITED', 'COMPLETED']);

    const active = await project.api.get(`/workflows/${flow.id}/executions/active`);
    assert.equal(active.status, 200, active.text);
    assert.deepEqual(active.body.data, [{ stepId: flow.stepIds[0], running: 0, waiting: 3 }]);

    const one = await project.api.get(`/workflows/${flow.id}/executions?contactId=${tracked[2]!.contact}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.total, 1);
    assert.deepEqual(
      one.body.data.map((e: { contactId: string; status: string }) => [e.contactId, e.status]),
      [[tracked[2]!.contact, 'WAITING']],
    );
    const none = await project.api.get(`/workflows/${flow.id}/executions?contactId=${randomUUID()}`);
    assert.deepEqual([none.body.total, none.body.data.length], [0, 0]);
    const bad = await project.api.get(`/workflows/${flow.id}/executions?contactId=not-an-id`);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.errors[0].field, 'contactId');

    const stranger = await createProject(server.url);
    assert.equal((await stranger.api.get(`/workflows/${flow.id}/executions/active`)).status, 404);
  });
});
