import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { buildWorkflow, connect, enable, eventually, track, waitForExecution } from '../kit/workflows.ts';

const WORKFLOW_KEYS = ['allowReentry', 'createdAt', 'description', 'enabled', 'id', 'name', 'steps', 'transitions', 'triggerConfig', 'triggerType', 'updatedAt', 'version'];
const EXECUTION_KEYS = ['completedAt', 'contactId', 'context', 'currentStepId', 'error', 'exitReason', 'id', 'startedAt', 'status', 'updatedAt', 'workflowId', 'workflowVersion'];

describe('workflows API (the API reference (Workflows); docs/decisions/workflows.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  async function template(project: TestProject) {
    const domain = await verifiedDomain(project, dns);
    const res = await project.api.post('/templates', { name: 'T', subject: 'Hi', body: '<p>Hi</p>', from: `a@${domain.domain}` });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  }

  test('create → 201 EVENT-triggered, disabled, one TRIGGER step; GET, list, PATCH; 401 without a key; 422 on a bad body', async () => {
    const project = await createProject(server.url);
    const res = await project.api.post('/workflows', { name: 'Onboarding', description: 'welcome flow', eventName: 'signed-up' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), WORKFLOW_KEYS);
    assert.equal(res.body.triggerType, 'EVENT');
    assert.deepEqual(res.body.triggerConfig, { eventName: 'signed-up' });
    assert.equal(res.body.enabled, false);
    assert.equal(res.body.allowReentry, false);
    assert.equal(res.body.steps.length, 1);
    assert.equal(res.body.steps[0].type, 'TRIGGER');
    assert.deepEqual(res.body.transitions, []);

    const got = await project.api.get(`/workflows/${res.body.id}`);
    assert.deepEqual(got.body, res.body);
    const listed = await project.dashboard.get('/workflows');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.map((w: { id: string }) => w.id),
      [res.body.id],
    );

    const patched = await project.api.patch(`/workflows/${res.body.id}`, { name: 'Renamed', enabled: true, allowReentry: true, triggerConfig: { eventName: 'joined' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.name, patched.body.enabled, patched.body.allowReentry, patched.body.triggerConfig.eventName], ['Renamed', true, true, 'joined']);
    const manual = await project.api.patch(`/workflows/${res.body.id}`, { triggerType: 'MANUAL', description: null });
    assert.deepEqual([manual.body.triggerType, manual.body.triggerConfig, manual.body.description], ['MANUAL', {}, null]);

    assert.equal((await client(server.url).get('/workflows')).status, 401);
    const bad = await project.api.post('/workflows', { name: '' });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.error.errors.map((e: { field: string }) => e.field).sort(), ['eventName', 'name']);
    assert.equal((await project.api.get(`/workflows/${randomUUID()}`)).status, 404);
    assert.equal((await project.api.get('/workflows/not-a-uuid')).status, 422);
    // Another project cannot see it.
    const other = await createProject(server.url);
    assert.equal((await other.api.get(`/workflows/${res.body.id}`)).status, 404);
  });

  test('steps of the seven types; configs checked per type with 422 naming config.<path>; PATCH a step; the TRIGGER cannot be deleted', async () => {
    const project = await createProject(server.url);
    const templateId = await template(project);
    const { id, triggerId } = await buildWorkflow(project.api, { eventName: 'x' });
    const valid: Array<[string, Record<string, unknown>]> = [
      ['SEND_EMAIL', { templateId }],
      ['DELAY', { amount: 2, unit: 'hours' }],
      ['WAIT_FOR_EVENT', { eventName: 'paid', timeoutSeconds: 60 }],
      ['CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' }],
      ['WEBHOOK', { url: 'https://hooks.example.test/{{ id }}', method: 'PUT', headers: { 'X-Token': 'abc' }, body: { email: '{{ email }}' } }],
      ['UPDATE_CONTACT', { data: { stage: 'trial', old: null }, subscribed: true }],
      ['EXIT', { reason: 'done' }],
    ];
    for (const [type, config] of valid) {
      const res = await project.api.post(`/workflows/${id}/steps`, { type, name: `${type} step`, config });
      assert.equal(res.status, 201, `${type}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['config', 'createdAt', 'id', 'name', 'type']);
      assert.equal(res.body.type, type);
    }
    const invalid: Array<[string, unknown, string, number?]> = [
      ['SEND_EMAIL', {}, 'config.templateId'],
      ['SEND_EMAIL', { templateId: templateId, to: 'not-an-email' }, 'config.to'],
      ['DELAY', { amount: 0, unit: 'seconds' }, 'config.amount'],
      ['DELAY', { amount: 366, unit: 'days' }, 'config.amount'],
      ['DELAY', { amount: 1, unit: 'weeks' }, 'config.unit'],
      ['WAIT_FOR_EVENT', { timeoutSeconds: 5 }, 'config.eventName'],
      ['WAIT_FOR_EVENT', { eventName: 'x', timeoutSeconds: -1 }, 'config.timeoutSeconds'],
      ['CONDITION', { field: 'plan', operator: 'equals', value: 'x' }, 'config.field'],
      ['CONDITION', { field: 'subscribed', operator: 'contains', value: 'x' }, 'config.operator'],
      ['CONDITION', { field: 'data.plan', operator: 'equals' }, 'config.value'],
      ['CONDITION', { field: 'subscribed', operator: 'equals', value: 'yes' }, 'config.value'],
      ['WEBHOOK', { url: 'ftp://x.test' }, 'config.url'],
      ['WEBHOOK', { url: 'https://x.test', method: 'DELETE' }, 'config.method'],
      ['WEBHOOK', { url: 'https://x.test', headers: { 'Bad Name': 'v' } }, 'config.headers.Bad Name'],
      ['UPDATE_CONTACT', { data: { nested: { a: 1 } } }, 'config.data.nested'],
      ['UPDATE_CONTACT', {}, 'config'],
      ['EXIT', { reason: 5 }, 'config.reason'],
    ];
    for (const [type, config, field] of invalid) {
      const res = await project.api.post(`/workflows/${id}/steps`, { type, config });
      assert.equal(res.status, 422, `${type} ${JSON.stringify(config)}: ${res.text}`);
      assert.ok(
        res.body.error.errors.some((e: { field: string }) => e.field === field),
        `${type}: expected ${field} in ${res.text}`,
      );
    }
    const syntax = await project.api.post(`/workflows/${id}/steps`, { type: 'WEBHOOK', config: { url: 'https://x.test/{{ id' } });
    assert.equal(syntax.status, 400);
    assert.equal(syntax.body.error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.equal(syntax.body.error.details.field, 'config.url');
    assert.equal((await project.api.post(`/workflows/${id}/steps`, { type: 'TRIGGER', config: {} })).status, 422);
    assert.equal((await project.api.post(`/workflows/${id}/steps`, { type: 'SEND_EMAIL', config: { templateId: randomUUID() } })).status, 404);

    const delay = (await project.api.get(`/workflows/${id}`)).body.steps.find((s: { type: string }) => s.type === 'DELAY');
    const patched = await project.api.patch(`/workflows/${id}/steps/${delay.id}`, { name: 'Wait a day', config: { amount: 1, unit: 'days' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.name, patched.body.config], ['Wait a day', { amount: 1, unit: 'days' }]);
    assert.equal((await project.api.patch(`/workflows/${id}/steps/${delay.id}`, { config: { amount: -1, unit: 'days' } })).status, 422);
    assert.equal((await project.api.delete(`/workflows/${id}/steps/${triggerId}`)).status, 400);
    assert.equal((await project.api.delete(`/workflows/${id}/steps/${randomUUID()}`)).status, 404);
  });

  test('graph rules → 400: self-loop, cycle, edge out of EXIT, second edge, wrong or missing branch, steps of another workflow, into the TRIGGER', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'x' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
      { type: 'UPDATE_CONTACT', config: { data: { a: 1 } } },
      { type: 'CONDITION', config: { field: 'email', operator: 'contains', value: '@' } },
    ]);
    const [delay, update, condition] = flow.stepIds as [string, string, string];
    const add = async (type: string, config: Record<string, unknown>) => (await project.api.post(`/workflows/${flow.id}/steps`, { type, config })).body.id as string;
    const exit = await add('EXIT', {});
    const wait = await add('WAIT_FOR_EVENT', { eventName: 'paid' });
    const timed = await add('WAIT_FOR_EVENT', { eventName: 'paid', timeoutSeconds: 30 });
    const other = await buildWorkflow(project.api, { eventName: 'y' }, [{ type: 'DELAY', config: { amount: 1, unit: 'seconds' } }]);

    const refused = async (fromStepId: string, toStepId: string, branch?: string | null) => {
      const res = await project.api.post(`/workflows/${flow.id}/transitions`, { fromStepId, toStepId, ...(branch !== undefined ? { branch } : {}) });
      assert.equal(res.status, 400, `${fromStepId} → ${toStepId} (${branch}): ${res.text}`);
      assert.equal(res.body.error.code, 'INVALID_TRANSITION');
      return res.body.error.message as string;
    };
    assert.match(await refused(delay, delay), /itself/);
    assert.match(await refused(condition, delay, 'yes'), /cycle/);
    assert.match(await refused(update, flow.triggerId), /TRIGGER/);
    assert.match(await refused(exit, delay), /EXIT/);
    assert.match(await refused(delay, exit), /already has/); // DELAY → UPDATE exists
    assert.match(await refused(condition, exit), /branch 'yes' or 'no'/);
    assert.match(await refused(condition, exit, 'maybe'), /branch 'yes' or 'no'/);
    assert.match(await refused(delay, exit, 'yes'), /no branch/);
    assert.match(await refused(wait, exit, 'timeout'), /timeoutSeconds/);
    assert.match(await refused(delay, other.stepIds[0]!), /not a step of this workflow/);
    assert.match(await refused(other.stepIds[0]!, exit), /not a step of this workflow/);

    const yes = await connect(project.api, flow.id, condition, exit, 'yes');
    assert.deepEqual(Object.keys(yes).sort(), ['branch', 'fromStepId', 'id', 'toStepId']);
    assert.equal(yes.branch, 'yes');
    assert.match(await refused(condition, wait, 'yes'), /already has a 'yes'/);
    await connect(project.api, flow.id, condition, wait, 'no');
    await connect(project.api, flow.id, timed, exit, 'timeout');
    await connect(project.api, flow.id, timed, exit, 'event');
    assert.match(await refused(timed, wait), /already has an? 'event'/);
    // A WAIT's timeout cannot be dropped while a 'timeout' edge leaves it.
    assert.equal((await project.api.patch(`/workflows/${flow.id}/steps/${timed}`, { config: { eventName: 'paid' } })).status, 400);

    const removed = await project.api.delete(`/workflows/${flow.id}/transitions/${yes.id}`);
    assert.equal(removed.status, 204);
    assert.equal((await project.api.delete(`/workflows/${flow.id}/transitions/${yes.id}`)).status, 404);
  });

  test('DELETE step with splice=true joins predecessor and successor (keeping the branch); without splice the edges go; 400 when ambiguous', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'x' }, [{ type: 'CONDITION', config: { field: 'data.a', operator: 'exists' } }]);
    const [condition] = flow.stepIds as [string];
    const add = async (type: string, config: Record<string, unknown>) => (await project.api.post(`/workflows/${flow.id}/steps`, { type, config })).body.id as string;
    const delay = await add('DELAY', { amount: 1, unit: 'minutes' });
    const update = await add('UPDATE_CONTACT', { data: { a: 2 } });
    const exit = await add('EXIT', {});
    await connect(project.api, flow.id, condition, delay, 'yes');
    await connect(project.api, flow.id, delay, update);
    await connect(project.api, flow.id, condition, exit, 'no');
    await connect(project.api, flow.id, update, exit);

    const spliced = await project.api.delete(`/workflows/${flow.id}/steps/${delay}?splice=true`);
    assert.equal(spliced.status, 204, spliced.text);
    let graph = (await project.api.get(`/workflows/${flow.id}`)).body;
    assert.ok(!graph.steps.some((s: { id: string }) => s.id === delay));
    assert.ok(graph.transitions.some((t: { fromStepId: string; toStepId: string; branch: string }) => t.fromStepId === condition && t.toStepId === update && t.branch === 'yes'));

    // exit has two predecessors (condition 'no' and update): splice is ambiguous.
    assert.equal((await project.api.delete(`/workflows/${flow.id}/steps/${exit}?splice=true`)).status, 400);
    const plain = await project.api.delete(`/workflows/${flow.id}/steps/${update}`);
    assert.equal(plain.status, 204);
    graph = (await project.api.get(`/workflows/${flow.id}`)).body;
    assert.deepEqual(
      graph.transitions.map((t: { fromStepId: string; toStepId: string }) => [t.fromStepId, t.toStepId]).sort(),
      [
        [flow.triggerId, condition],
        [condition, exit],
      ].sort(),
    );
  });

  test('GET /workflows/fields: contact fields, data keys, event names and, with eventName, event.<key>; usage seams list workflows', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail('fields');
    await track(project.publicApi, email, 'order-placed', { plan: 'pro', total: 42 });
    const res = await project.api.get('/workflows/fields?eventName=order-placed');
    assert.equal(res.status, 200, res.text);
    const fields = new Map(res.body.fields.map((f: { field: string; type: string; operators: string[] }) => [f.field, f]));
    assert.deepEqual((fields.get('subscribed') as { operators: string[] }).operators, ['equals', 'notEquals']);
    assert.ok(fields.has('email') && fields.has('data.plan') && fields.has('data.total'));
    assert.equal((fields.get('event.total') as { type: string }).type, 'number');
    assert.ok(res.body.eventNames.includes('order-placed'));

    const templateId = await template(project);
    const flow = await buildWorkflow(project.api, { name: 'Uses things', eventName: 'order-placed' }, [
      { type: 'CONDITION', config: { field: 'data.plan', operator: 'equals', value: 'pro' } },
    ]);
    const send = await project.api.post(`/workflows/${flow.id}/steps`, { type: 'SEND_EMAIL', config: { templateId } });
    await project.api.post(`/workflows/${flow.id}/steps`, { type: 'WAIT_FOR_EVENT', config: { eventName: 'paid' } });
    const usage = await project.api.get(`/templates/${templateId}/usage`);
    assert.deepEqual(usage.body.workflows, [{ id: flow.id, name: 'Uses things', stepId: send.body.id }]);
    const field = await project.api.get('/contacts/fields/plan/usage');
    assert.deepEqual(field.body.workflows, [{ id: flow.id, name: 'Uses things' }]);
    for (const name of ['order-placed', 'paid']) {
      const events = await project.api.get(`/events/${name}/usage`);
      assert.deepEqual(events.body.workflows, [{ id: flow.id, name: 'Uses things' }], name);
    }
  });

  test('executions: manual start (400 disabled, 404 contact, 409 re-entry), context kept, list with status filter, cancel a WAITING one, cancel-all, DELETE 409 while active', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'never-tracked' }, [{ type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } }]);
    const contact = await project.api.post('/contacts', { email: uniqueEmail('manual') });
    const contactId = contact.body.id as string;

    const disabled = await project.api.post(`/workflows/${flow.id}/executions`, { contactId });
    assert.equal(disabled.status, 400);
    assert.equal(disabled.body.error.code, 'WORKFLOW_DISABLED');
    await enable(project.api, flow.id);
    assert.equal((await project.api.post(`/workflows/${flow.id}/executions`, { contactId: randomUUID() })).status, 404);
    assert.equal((await project.api.post(`/workflows/${flow.id}/executions`, { contactId: 'nope' })).status, 422);

    const started = await project.api.post(`/workflows/${flow.id}/executions`, { contactId, context: { source: 'api', n: 1 } });
    assert.equal(started.status, 201, started.text);
    assert.deepEqual(Object.keys(started.body).sort(), EXECUTION_KEYS);
    assert.deepEqual(started.body.context, { source: 'api', n: 1 });
    assert.equal(started.body.status, 'RUNNING');
    const waiting = await waitForExecution(project.api, flow.id, contactId, ['WAITING']);
    assert.equal(waiting.currentStepId, flow.stepIds[0]);
    assert.deepEqual(
      waiting.steps.map((s: { type: string; status: string }) => [s.type, s.status]),
      [
        ['TRIGGER', 'COMPLETED'],
        ['WAIT_FOR_EVENT', 'WAITING'],
      ],
    );

    const again = await project.api.post(`/workflows/${flow.id}/executions`, { contactId });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'REENTRY_REFUSED');
    const busy = await project.api.delete(`/workflows/${flow.id}`);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, 'WORKFLOW_HAS_ACTIVE_EXECUTIONS');

    const list = await project.api.get(`/workflows/${flow.id}/executions?status=WAITING`);
    assert.equal(list.status, 200);
    assert.deepEqual([list.body.total, list.body.hasMore, list.body.data[0].id], [1, false, started.body.id]);
    assert.equal((await project.api.get(`/workflows/${flow.id}/executions?status=COMPLETED`)).body.total, 0);
    assert.equal((await project.api.get(`/workflows/${flow.id}/executions?status=bogus`)).status, 400);

    const cancelled = await project.api.delete(`/workflows/${flow.id}/executions/${started.body.id}`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'CANCELLED');
    assert.ok(cancelled.body.completedAt);
    const detail = await project.api.get(`/workflows/${flow.id}/executions/${started.body.id}`);
    assert.deepEqual(
      detail.body.steps.map((s: { status: string }) => s.status),
      ['COMPLETED', 'CANCELLED'],
    );
    assert.equal((await project.api.delete(`/workflows/${flow.id}/executions/${started.body.id}`)).status, 400);
    // allowReentry false: once entered, never again (even after the first ended).
    assert.equal((await project.api.post(`/workflows/${flow.id}/executions`, { contactId })).status, 409);

    // cancel-all with allowReentry true and two contacts waiting.
    await project.api.patch(`/workflows/${flow.id}`, { allowReentry: true });
    const second = await project.api.post('/contacts', { email: uniqueEmail('manual') });
    for (const id of [contactId, second.body.id]) assert.equal((await project.api.post(`/workflows/${flow.id}/executions`, { contactId: id })).status, 201);
    await eventually('both waiting', async () => (await project.api.get(`/workflows/${flow.id}/executions?status=WAITING`)).body.total === 2);
    const all = await project.api.post(`/workflows/${flow.id}/executions/cancel-all`);
    assert.deepEqual(all.body, { cancelled: 2 });
    assert.equal((await project.api.delete(`/workflows/${flow.id}`)).status, 204);
    assert.equal((await project.api.get(`/workflows/${flow.id}`)).status, 404);
  });

  test('cursor pagination of executions', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { eventName: 'e', allowReentry: true });
    await enable(project.api, flow.id);
    const contact = await project.api.post('/contacts', { email: uniqueEmail('page') });
    // A TRIGGER without a successor completes at once, so the same contact may start again.
    for (let i = 0; i < 5; i++) assert.equal((await project.api.post(`/workflows/${flow.id}/executions`, { contactId: contact.body.id })).status, 201);
    const first = await project.api.get(`/workflows/${flow.id}/executions?limit=2`);
    assert.deepEqual([first.body.data.length, first.body.hasMore, first.body.total], [2, true, 5]);
    const seen = new Set(first.body.data.map((e: { id: string }) => e.id));
    let cursor = first.body.cursor;
    while (cursor) {
      const page = await project.api.get(`/workflows/${flow.id}/executions?limit=2&cursor=${encodeURIComponent(cursor)}`);
      assert.equal(page.body.total, 0);
      for (const e of page.body.data) seen.add(e.id);
      cursor = page.body.cursor;
    }
    assert.equal(seen.size, 5);
    assert.equal((await project.api.get(`/workflows/${flow.id}/executions?cursor=garbage`)).status, 400);
  });
});
