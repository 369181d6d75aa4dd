import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, connect, enable, eventually, executionsOf, type Receiver, startReceiver, track, waitForExecution } from '../kit/workflows.ts';

type StepRecord = { stepId: string; type: string; status: string; startedAt: string; completedAt: string | null; output: any; error: string | null };

describe('the workflow engine: triggered executions run their steps in the background (docs/decisions/workflows.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let receiver: Receiver;
  let server: TestServer;
  before(async () => {
    sink = await startSmtpSink();
    receiver = await startReceiver(async (request, response) => {
      if (request.path.startsWith('/fail')) return void response.writeHead(500).end('boom');
      const hop = /^\/hop\/(\d+)/.exec(request.path);
      if (hop) {
        const n = Number(hop[1]);
        return void response.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/landed' }).end();
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, padding: 'x'.repeat(5000) }));
    });
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' }));
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await sink.close();
  });

  async function sender(project: TestProject, subject: string, body: string) {
    const domain = await verifiedDomain(project, dns);
    const res = await project.api.post('/templates', { name: 'Welcome', subject, body, from: `hello@${domain.domain}`, type: 'TRANSACTIONAL' });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }

  const byType = (steps: StepRecord[]) => new Map(steps.map((step) => [step.type, step]));

  test('event → CONDITION → DELAY 1 s → WEBHOOK → UPDATE_CONTACT → SEND_EMAIL, delivered over SMTP; the other branch EXITs with its reason', async () => {
    const project = await createProject(server.url);
    const templateId = await sender(project, 'Welcome {{ name }}', '<p>Plan {{ event.plan }}, stage {{ data.stage }}, flow {{ workflow.name }}.</p>');
    const flow = await buildWorkflow(project.api, { name: 'Onboard', eventName: 'signed-up' }, [
      { type: 'CONDITION', config: { field: 'event.plan', operator: 'equals', value: 'pro' } },
    ]);
    const [condition] = flow.stepIds as [string];
    const add = async (type: string, config: Record<string, unknown>) => {
      const res = await project.api.post(`/workflows/${flow.id}/steps`, { type, config });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    };
    const delay = await add('DELAY', { amount: 1, unit: 'seconds' });
    const webhook = await add('WEBHOOK', { url: `${receiver.url}/hook/{{ id }}`, headers: { 'X-Plan': '{{ event.plan }}' } });
    const update = await add('UPDATE_CONTACT', { data: { stage: 'welcomed' } });
    const send = await add('SEND_EMAIL', { templateId });
    const exit = await add('EXIT', { reason: 'not pro' });
    await connect(project.api, flow.id, condition, delay, 'yes');
    await connect(project.api, flow.id, condition, exit, 'no');
    await connect(project.api, flow.id, delay, webhook);
    await connect(project.api, flow.id, webhook, update);
    await connect(project.api, flow.id, update, send);
    await enable(project.api, flow.id);

    const pro = uniqueEmail('pro');
    const trackedAt = Date.now();
    const proContact = (await track(project.publicApi, pro, 'signed-up', { plan: 'pro', name: 'Ada' })).contact;
    const freeContact = (await track(project.publicApi, uniqueEmail('free'), 'signed-up', { plan: 'free' })).contact;

    const done = await waitForExecution(project.api, flow.id, proContact, ['COMPLETED', 'FAILED'], 30_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.currentStepId, send);
    assert.ok(Date.parse(done.startedAt) - trackedAt < 5000, 'started within 5 s of the track');
    const steps = byType(done.steps);
    assert.deepEqual(
      done.steps.map((s: StepRecord) => s.type),
      ['TRIGGER', 'CONDITION', 'DELAY', 'WEBHOOK', 'UPDATE_CONTACT', 'SEND_EMAIL'],
    );
    assert.ok(done.steps.every((s: StepRecord) => s.status === 'COMPLETED' && s.completedAt));
    assert.deepEqual(steps.get('CONDITION')!.output, { result: true });
    const waited = Date.parse(steps.get('DELAY')!.completedAt!) - Date.parse(steps.get('DELAY')!.startedAt);
    assert.ok(waited >= 1000 && waited < 6000, `the delay took ${waited} ms`);

    // The webhook: rendered url and header, the default body, the idempotency key; response recorded (4 KB).
    const call = receiver.requests.find((r) => r.path === `/hook/${proContact}`);
    assert.ok(call, 'the webhook was called');
    assert.equal(receiver.requests.filter((r) => r.path === `/hook/${proContact}`).length, 1);
    assert.equal(call.method, 'POST');
    assert.equal(call.headers['x-plan'], 'pro');
    assert.equal(call.headers['idempotency-key'], `${done.id}:${webhook}`);
    assert.ok(call.at >= Date.parse(steps.get('DELAY')!.startedAt) + 1000);
    const body = JSON.parse(call.body);
    assert.deepEqual(Object.keys(body).sort(), ['contact', 'event', 'execution', 'workflow']);
    assert.deepEqual(
      [body.contact.id, body.contact.email, body.workflow.id, body.execution.id, body.event.name, body.event.data.plan],
      [proContact, pro, flow.id, done.id, 'signed-up', 'pro'],
    );
    const response = steps.get('WEBHOOK')!.output;
    assert.equal(response.status, 200);
    assert.equal(Buffer.byteLength(response.body), 4096);
    assert.ok(response.body.startsWith('{"received":true'));

    // UPDATE_CONTACT wrote through the data rules; SEND_EMAIL rendered with the updated contact.
    const contact = await project.api.get(`/contacts/${proContact}`);
    assert.equal(contact.body.data.stage, 'welcomed');
    const emailId = steps.get('SEND_EMAIL')!.output.emailId;
    const record = await waitForStatus(project.api, emailId, ['DELIVERED']);
    assert.deepEqual([record.sourceType, record.workflowId, record.templateId, record.contactId, record.to], ['WORKFLOW', flow.id, templateId, proContact, pro]);
    const message = await eventually('the message', async () => sink.messages.find((m) => m.envelope.to.includes(pro)));
    assert.equal(message.parsed.subject, 'Welcome Ada');
    assert.match(message.parsed.html || '', /Plan pro, stage welcomed, flow Onboard\./);

    const exited = await waitForExecution(project.api, flow.id, freeContact, ['EXITED', 'COMPLETED', 'FAILED']);
    assert.deepEqual([exited.status, exited.exitReason, exited.currentStepId], ['EXITED', 'not pro', exit]);
    assert.deepEqual(
      exited.steps.map((s: StepRecord) => s.type),
      ['TRIGGER', 'CONDITION', 'EXIT'],
    );
    assert.ok(!receiver.requests.some((r) => r.path === `/hook/${freeContact}`));
  });

  test('WAIT_FOR_EVENT: resumed by an event tracked after the wait began; an earlier one does not count, so that wait times out', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'cart-filled' }, [{ type: 'WAIT_FOR_EVENT', config: { eventName: 'purchased', timeoutSeconds: 3 } }]);
    const [wait] = flow.stepIds as [string];
    const bought = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'UPDATE_CONTACT', config: { data: { outcome: 'bought' } } })).body.id;
    const abandoned = (await project.api.post(`/workflows/${flow.id}/steps`, { type: 'UPDATE_CONTACT', config: { data: { outcome: 'abandoned' } } })).body.id;
    await connect(project.api, flow.id, wait, bought, 'event');
    await connect(project.api, flow.id, wait, abandoned, 'timeout');
    await enable(project.api, flow.id);

    // Early: bought before the cart, so its wait must not see the purchase.
    const early = uniqueEmail('early');
    await track(project.publicApi, early, 'purchased');
    const earlyContact = (await track(project.publicApi, early, 'cart-filled')).contact;
    const buyer = uniqueEmail('buyer');
    const buyerContact = (await track(project.publicApi, buyer, 'cart-filled')).contact;
    const waiting = await waitForExecution(project.api, flow.id, buyerContact, ['WAITING']);
    const purchasedAt = Date.now();
    const purchase = await track(project.publicApi, buyer, 'purchased', { sku: 'A1' });

    const resumed = await waitForExecution(project.api, flow.id, buyerContact, ['COMPLETED', 'FAILED']);
    assert.equal(resumed.id, waiting.id);
    assert.equal(resumed.status, 'COMPLETED');
    assert.ok(Date.parse(resumed.completedAt) - purchasedAt < 2500, 'resumed well before the timeout');
    assert.deepEqual(byType(resumed.steps).get('WAIT_FOR_EVENT')!.output, { resumedBy: 'event', eventId: purchase.event });
    assert.equal((await project.api.get(`/contacts/${buyerContact}`)).body.data.outcome, 'bought');

    const timedOut = await waitForExecution(project.api, flow.id, earlyContact, ['COMPLETED', 'FAILED'], 15_000);
    assert.equal(timedOut.status, 'COMPLETED');
    assert.deepEqual(byType(timedOut.steps).get('WAIT_FOR_EVENT')!.output, { resumedBy: 'timeout' });
    const waitedMs = Date.parse(timedOut.completedAt) - Date.parse(timedOut.startedAt);
    assert.ok(waitedMs >= 3000 && waitedMs < 8000, `timed out after ${waitedMs} ms`);
    assert.equal((await project.api.get(`/contacts/${earlyContact}`)).body.data.outcome, 'abandoned');
  });

  test('re-entry: allowReentry false admits a contact once ever; true admits again only when none is RUNNING or WAITING', async () => {
    const project = await createProject(server.url);
    const once = await buildWorkflow(project.api, { eventName: 'ping' }, [{ type: 'UPDATE_CONTACT', config: { data: { pinged: true }, subscribed: false } }]);
    const again = await buildWorkflow(project.api, { eventName: 'ping', allowReentry: true }, [{ type: 'DELAY', config: { amount: 2, unit: 'seconds' } }]);
    await enable(project.api, once.id);
    await enable(project.api, again.id);
    const email = uniqueEmail('reentry');
    const contactId = (await track(project.publicApi, email, 'ping')).contact;
    await waitForExecution(project.api, once.id, contactId, ['COMPLETED']);
    // UPDATE_CONTACT wrote through the data rules, and its change of `subscribed` emitted the event.
    const contact = (await project.api.get(`/contacts/${contactId}`)).body;
    assert.deepEqual([contact.subscribed, contact.data.pinged], [false, true]);
    const events = await project.api.get(`/events?contactId=${contactId}&name=contact.unsubscribed`);
    assert.equal(events.body.data.length, 1);
    await waitForExecution(project.api, again.id, contactId, ['WAITING']);
    // While `again` waits: a second ping enters neither.
    await track(project.publicApi, email, 'ping');
    await waitForExecution(project.api, again.id, contactId, ['COMPLETED'], 15_000);
    assert.equal((await executionsOf(project.api, once.id, contactId)).length, 1);
    assert.equal((await executionsOf(project.api, again.id, contactId)).length, 1);
    // Now that nothing is active: `again` admits the contact again, `once` still refuses.
    await track(project.publicApi, email, 'ping');
    await eventually('a second execution', async () => (await executionsOf(project.api, again.id, contactId)).length === 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await executionsOf(project.api, once.id, contactId)).length, 1);
  });

  test("a batch's contact writes: each contact's writes in order (null removes a key), one subscription event per change, later steps see the written contact", async () => {
    const project = await createProject(server.url);
    const templateId = await sender(project, 'Hi', '<p>a={{ data.a }} drop={{ data.drop ?? "gone" }} keep={{ data.keep }}</p>');
    // Two UPDATE_CONTACTs in a row on one contact (unsubscribe, then subscribe again), then a send;
    // a second workflow on the same event writes the same contacts in the same batches.
    const flip = await buildWorkflow(project.api, { eventName: 'batch-write' }, [
      { type: 'UPDATE_CONTACT', config: { data: { a: 1, drop: null }, subscribed: false } },
      { type: 'UPDATE_CONTACT', config: { data: { a: 2 }, subscribed: true } },
      { type: 'SEND_EMAIL', config: { templateId } },
    ]);
    const other = await buildWorkflow(project.api, { eventName: 'batch-write' }, [{ type: 'UPDATE_CONTACT', config: { data: { b: 'x' } } }]);
    await enable(project.api, flip.id);
    await enable(project.api, other.id);
    const emails = Array.from({ length: 20 }, (_, i) => uniqueEmail(`batch-${i}`));
    const ids: string[] = [];
    for (const email of emails) {
      const created = await project.api.post('/contacts', { email, data: { keep: 'k', drop: 'd' } });
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.id);
    }
    await Promise.all(emails.map((email) => track(project.publicApi, email, 'batch-write')));
    for (const [i, contactId] of ids.entries()) {
      const done = await waitForExecution(project.api, flip.id, contactId, ['COMPLETED', 'FAILED'], 30_000);
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
      assert.equal((await waitForExecution(project.api, other.id, contactId, ['COMPLETED', 'FAILED'], 30_000)).status, 'COMPLETED');
      const contact = (await project.api.get(`/contacts/${contactId}`)).body;
      assert.deepEqual([contact.subscribed, contact.data], [true, { keep: 'k', a: 2, b: 'x' }]);
      for (const name of ['contact.unsubscribed', 'contact.subscribed']) {
        assert.equal((await project.api.get(`/events?contactId=${contactId}&name=${name}`)).body.data.length, 1, `${name} of ${emails[i]}`);
      }
      const updates = done.steps.filter((s: StepRecord) => s.type === 'UPDATE_CONTACT').map((s: StepRecord) => s.output);
      assert.deepEqual(updates, [
        { subscribed: false, set: ['a'], unset: ['drop'] },
        { subscribed: true, set: ['a'], unset: [] },
      ]);
      const emailId = byType(done.steps).get('SEND_EMAIL')!.output.emailId;
      await waitForStatus(project.api, emailId, ['DELIVERED']);
      const message = await eventually('the message', async () => sink.messages.find((m) => m.envelope.to.includes(emails[i]!)));
      assert.match(message.parsed.html || '', /a=2 drop=gone keep=k/);
    }
  });

  test('a cancelled WAITING execution never resumes; a failing webhook marks its execution FAILED with the error while others complete; redirects are followed up to 3', async () => {
    const project = await createProject(server.url);
    const slow = await buildWorkflow(project.api, { eventName: 'slow' }, [
      { type: 'DELAY', config: { amount: 2, unit: 'seconds' } },
      { type: 'WEBHOOK', config: { url: `${receiver.url}/after-cancel` } },
    ]);
    await enable(project.api, slow.id);
    const cancelledContact = (await track(project.publicApi, uniqueEmail('cancel'), 'slow')).contact;
    const waiting = await waitForExecution(project.api, slow.id, cancelledContact, ['WAITING']);
    const cancelled = await project.api.delete(`/workflows/${slow.id}/executions/${waiting.id}`);
    assert.equal(cancelled.body.status, 'CANCELLED');
    const delayEnds = Date.now() + 2000;

    const hooks = await buildWorkflow(project.api, { eventName: 'hook' }, [{ type: 'WEBHOOK', config: { url: `${receiver.url}/{{ event.path }}`, method: 'GET' } }]);
    await enable(project.api, hooks.id);
    const failing = (await track(project.publicApi, uniqueEmail('fail'), 'hook', { path: 'fail' })).contact;
    const threeHops = (await track(project.publicApi, uniqueEmail('hops'), 'hook', { path: 'hop/2' })).contact;
    const fourHops = (await track(project.publicApi, uniqueEmail('hops'), 'hook', { path: 'hop/3' })).contact;

    const failed = await waitForExecution(project.api, hooks.id, failing, ['FAILED', 'COMPLETED']);
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.error, /WEBHOOK step failed: The webhook answered 500/);
    const failedStep = byType(failed.steps).get('WEBHOOK')!;
    assert.deepEqual([failedStep.status, failedStep.output.status, failedStep.output.body], ['FAILED', 500, 'boom']);

    const redirected = await waitForExecution(project.api, hooks.id, threeHops, ['FAILED', 'COMPLETED']);
    assert.equal(redirected.status, 'COMPLETED');
    const output = byType(redirected.steps).get('WEBHOOK')!.output;
    assert.deepEqual([output.redirects, output.url], [3, `${receiver.url}/landed`]);
    const tooMany = await waitForExecution(project.api, hooks.id, fourHops, ['FAILED', 'COMPLETED']);
    assert.equal(tooMany.status, 'FAILED');
    assert.match(tooMany.error, /More than 3 redirects/);

    // Well past the cancelled execution's delay: it stayed cancelled and never called out.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, delayEnds + 2000 - Date.now())));
    const after = await project.api.get(`/workflows/${slow.id}/executions/${waiting.id}`);
    assert.equal(after.body.status, 'CANCELLED');
    assert.ok(!receiver.requests.some((r) => r.path === '/after-cancel'));
  });
});
