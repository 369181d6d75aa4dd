import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type Deployment, startDeployment } from '../kit/deployment.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment } from '../kit/server.ts';
import { buildWorkflow, enable, eventually, type Receiver, startReceiver } from '../kit/workflows.ts';

const EXECUTIONS = 60;
const KILLS = 5;
/**
 * The endpoint answers each call after this long: every kill lands on calls in flight, and few
 * executions finish between kills, so there is work left for every kill of the loop.
 */
const ANSWER_MS = 2_000;

describe('a worker crash loop delays WEBHOOK steps but fails none (docs/decisions/workflows.md)', () => {
  let receiver: Receiver;
  let deployment: Deployment | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  before(async () => {
    receiver = await startReceiver(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  after(async () => {
    await deployment?.stop();
    await cleanup?.();
    await receiver.close();
  });

  test(`${EXECUTIONS} executions call a slow endpoint while the worker is SIGKILLed ${KILLS} times: all complete, every call was counted as an attempt before it left, repeats only of calls in flight (same Idempotency-Key)`, async () => {
    const environment = await prepareEnvironment({ WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
    cleanup = environment.cleanup;
    deployment = await startDeployment(environment.env);
    const project = await createProject(deployment.apiUrl());
    const flow = await buildWorkflow(project.api, { eventName: 'order.paid' }, [
      { type: 'WEBHOOK', config: { url: `${receiver.url}/fulfil` } },
      { type: 'UPDATE_CONTACT', config: { data: { fulfilled: true } } },
    ]);
    await enable(project.api, flow.id);
    const emails = Array.from({ length: EXECUTIONS }, () => uniqueEmail('loop'));
    for (const email of emails) {
      const res = await project.publicApi.post('/v1/track', { email, event: 'order.paid', data: { order: `Заказ ${email.slice(5, 11)}`, total: 129.5 } });
      assert.equal(res.status, 200, res.text);
    }
    await eventually('every execution started', async () => (await project.api.get(`/workflows/${flow.id}/executions?limit=1`)).body.total === EXECUTIONS, 30_000, 50);

    let callsAtKills = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // A few seconds after the worker is ready: calls are out (each takes 2 s), none answered yet.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await deployment.signalWorker('SIGKILL', () => receiver.requests.length);
      callsAtKills = receiver.requests.length;
      await deployment.restartWorker();
    }
    assert.ok(callsAtKills > 0, 'calls were made during the crash loop');
    const api = client(deployment.apiUrl(), { key: project.secretKey });
    await eventually(
      'every execution COMPLETED',
      async () => (await api.get(`/workflows/${flow.id}/executions?status=COMPLETED&limit=1`)).body.total === EXECUTIONS,
      120_000,
      250,
    ).catch(async (error: Error) => {
      const res = await api.get(`/workflows/${flow.id}/executions?limit=100`);
      throw new Error(`${error.message}; statuses: ${res.body.data.map((e: { status: string }) => e.status).join(', ')}`);
    });

    const calls = new Map<string, number>();
    for (const request of receiver.requests) {
      const key = String(request.headers['idempotency-key']);
      calls.set(key, (calls.get(key) ?? 0) + 1);
    }
    assert.equal(calls.size, EXECUTIONS, 'every execution called the endpoint');
    let repeats = 0;
    let attemptsWithoutCall = 0;
    const list = await api.get(`/workflows/${flow.id}/executions?limit=100`);
    for (const execution of list.body.data) {
      const detail = (await api.get(`/workflows/${flow.id}/executions/${execution.id}`)).body;
      const steps = detail.steps as Array<{ id: string; stepId?: string; type: string; status: string; attempts: number }>;
      assert.deepEqual(
        steps.map((s) => [s.type, s.status]),
        [
          ['TRIGGER', 'COMPLETED'],
          ['WEBHOOK', 'COMPLETED'],
          ['UPDATE_CONTACT', 'COMPLETED'],
        ],
      );
      const webhook = steps[1]!;
      const made = calls.get(`${execution.id}:${flow.stepIds[0]}`) ?? 0;
      // No call without an attempt; an attempt without a call is a kill between its commit and the request.
      assert.ok(made >= 1 && webhook.attempts >= made, `execution ${execution.id}: ${made} calls, ${webhook.attempts} attempts`);
      repeats += made - 1;
      attemptsWithoutCall += webhook.attempts - made;
      for (const step of [steps[0]!, steps[2]!]) assert.equal(step.attempts, 1, `${step.type} ran ${step.attempts} times`);
      assert.equal((await api.get(`/contacts/${execution.contactId}`)).body.data.fulfilled, true);
    }
    // Only calls in flight at a kill are made again: the engine runs at most 8 calls at once.
    assert.ok(repeats <= KILLS * 8, `${repeats} repeated calls for ${KILLS} kills`);
    // An attempt without a call: a kill between a call's commit and its request (at most the 8 calls at once, per kill).
    assert.ok(attemptsWithoutCall <= KILLS * 8, `${attemptsWithoutCall} attempts without a call`);
    assert.equal(receiver.requests.length, EXECUTIONS + repeats);
  });
});
