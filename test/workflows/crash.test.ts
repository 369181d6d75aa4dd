import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_IN_FLIGHT } from '../../src/delivery/delivery.service.ts';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, enable, eventually, type Receiver, startReceiver } from '../kit/workflows.ts';

const CONTACTS = 30;

describe('a worker killed mid-run resumes every execution from its current step (durability)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let receiver: Receiver;
  let server: SpawnedServer | undefined;
  let cleanup: () => Promise<void>;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    // A slow endpoint, so that the kill lands while calls are in flight.
    receiver = await startReceiver(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      response.writeHead(200).end('ok');
    });
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup?.();
    await receiver.close();
    await sink.close();
    await dns.close();
  });

  test(`SIGKILL while ${CONTACTS} executions delay, call a webhook, update and send; after a restart each completes, with one email each`, async () => {
    const environment = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' });
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const template = await project.api.post('/templates', { name: 'T', subject: 'Once for {{ email }}', body: '<p>once</p>', from: `a@${domain.domain}`, type: 'TRANSACTIONAL' });
    assert.equal(template.status, 201, template.text);
    const flow = await buildWorkflow(project.api, { eventName: 'go' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
      { type: 'WEBHOOK', config: { url: `${receiver.url}/hook` } },
      { type: 'UPDATE_CONTACT', config: { data: { done: true } } },
      { type: 'SEND_EMAIL', config: { templateId: template.body.id } },
    ]);
    await enable(project.api, flow.id);

    const emails = Array.from({ length: CONTACTS }, () => uniqueEmail('crash'));
    for (const email of emails) assert.equal((await project.publicApi.post('/v1/track', { email, event: 'go' })).status, 200);
    // Every trigger handled first: events a killed worker was dispatching wait for that work's lease
    // or expiry in src/events, which is not what this test is about.
    await eventually('every execution started', async () => (await project.api.get(`/workflows/${flow.id}/executions?limit=1`)).body.total === CONTACTS, 30_000, 20);
    await eventually('calls in flight', async () => receiver.requests.length >= 8, 30_000, 10);
    await server.stop('SIGKILL');
    const callsAtKill = receiver.requests.length;
    assert.ok(callsAtKill < CONTACTS, 'the kill came before every call was made');

    server = await spawnServer(environment.env);
    const api = client(server.url, { key: project.secretKey });
    // Executions held by the dead worker are taken over when their lease (30 s) ends.
    await eventually(
      'every execution COMPLETED',
      async () => {
        const res = await api.get(`/workflows/${flow.id}/executions?status=COMPLETED`);
        return res.body.total === CONTACTS;
      },
      120_000,
      500,
    ).catch(async (error: Error) => {
      const res = await api.get(`/workflows/${flow.id}/executions?limit=100`);
      throw new Error(`${error.message}; statuses: ${res.body.data.map((e: { status: string }) => e.status).join(', ')}`);
    });

    const list = await api.get(`/workflows/${flow.id}/executions?limit=100`);
    assert.equal(list.body.total, CONTACTS, 'one execution per contact');
    const emailIds: string[] = [];
    for (const execution of list.body.data) {
      const detail = await api.get(`/workflows/${flow.id}/executions/${execution.id}`);
      const steps = detail.body.steps as Array<{ type: string; status: string; attempts: number; output: { emailId?: string } }>;
      assert.deepEqual(
        steps.map((s) => s.type),
        ['TRIGGER', 'DELAY', 'WEBHOOK', 'UPDATE_CONTACT', 'SEND_EMAIL'],
      );
      assert.ok(steps.every((s) => s.status === 'COMPLETED'));
      // Only the WEBHOOK, the retry-safe step, may have been tried twice (its first call in flight at the kill).
      for (const step of steps) assert.ok(step.type === 'WEBHOOK' ? step.attempts <= 2 : step.attempts === 1, `${step.type} attempts ${step.attempts}`);
      emailIds.push(steps.at(-1)!.output.emailId!);
      assert.equal((await api.get(`/contacts/${execution.contactId}`)).body.data.done, true);
    }
    assert.equal(new Set(emailIds).size, CONTACTS);

    // Webhooks: every execution called, repeats only with the same Idempotency-Key and only for calls in flight at the kill.
    const keys = new Map<string, number>();
    for (const request of receiver.requests) keys.set(String(request.headers['idempotency-key']), (keys.get(String(request.headers['idempotency-key'])) ?? 0) + 1);
    assert.equal(keys.size, CONTACTS);
    const repeated = [...keys.values()].filter((n) => n > 1);
    assert.ok(repeated.every((n) => n === 2) && repeated.length <= 8, `repeats: ${repeated.length}`);

    // Emails: one record per execution, all settled. A message whose SMTP transaction was in flight
    // at the kill is sent again with the same Message-ID and counted in `resends` (docs/decisions/sending.md).
    const settled = await eventually(
      'every email settled',
      async () => {
        const records = await Promise.all(emailIds.map(async (id) => (await api.get(`/emails/${id}`)).body));
        return records.every((r) => ['DELIVERED', 'FAILED'].includes(r.status)) ? records : undefined;
      },
      120_000,
      500,
    );
    let repeats = 0;
    for (const record of settled) {
      assert.equal(record.sourceType, 'WORKFLOW');
      const received = sink.messages.filter((m) => m.envelope.to.includes(record.to));
      if (record.status === 'DELIVERED') assert.ok(received.length >= 1, `${record.to} never got its message`);
      assert.ok(
        received.every((m) => m.parsed.messageId === record.messageId),
        `${record.to}: another Message-ID`,
      );
      assert.ok(record.resends >= received.length - 1, `${record.to}: ${received.length} messages, ${record.resends} resends`);
      repeats += Math.max(0, received.length - 1);
    }
    assert.ok(repeats <= MAX_IN_FLIGHT, `${repeats} repeats`);
    assert.deepEqual(settled.map((r) => r.to).sort(), [...emails].sort());
  });
});
