import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable } from '../kit/workflows.ts';

// A contact in context (docs/decisions/contacts-and-events.md, "Filtering the list"; docs/decisions/segments.md;
// docs/decisions/workflows.md): the list narrowed by a condition tree, the segments a contact is in, and its
// executions of every workflow.

const PEOPLE = [
  { email: 'ingrid.berg@fjord.example', data: { plan: 'pro', city: 'Tromsø', seats: 40 } },
  { email: 'kenji.sato@onsen.example', data: { plan: 'pro', city: '京都', seats: 3 } },
  { email: 'ana.souza@leitura.example', data: { plan: 'free', city: 'São Paulo', seats: 1 } },
  { email: 'olga.ivanova@sever.example', data: { plan: 'pro', city: 'Москва', seats: 12 } },
  { email: 'sigrid.dahl@fjord.example', data: { plan: 'free', city: 'Tromsø', seats: 2 } },
];

const q = (condition: unknown) => encodeURIComponent(JSON.stringify(condition));
const emailsOf = (body: { data: { email: string }[] }) => body.data.map((c) => c.email).sort();

describe('GET /contacts?condition, GET /contacts/{id}/segments, GET /contacts/{id}/executions', () => {
  let server: TestServer;
  let project: TestProject;
  const ids: Record<string, string> = {};
  let bigTeams = '';
  let handPicked = '';
  let proInBigTeams = '';
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
    for (const person of PEOPLE) {
      const res = await project.api.post('/contacts', person);
      assert.equal(res.status, 201, res.text);
      ids[person.email] = res.body.id;
    }
    const dynamic = await project.api.post('/segments', {
      name: 'Teams of ten or more',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.seats', operator: 'greaterThanOrEqual', value: 10 }] }] },
    });
    assert.equal(dynamic.status, 201, dynamic.text);
    bigTeams = dynamic.body.id;
    const fixed = await project.api.post('/segments', { name: 'Hand-picked for the beta — ベータ', type: 'STATIC' });
    assert.equal(fixed.status, 201, fixed.text);
    handPicked = fixed.body.id;
    const added = await project.api.post(`/segments/${handPicked}/members`, { emails: ['kenji.sato@onsen.example', 'ana.souza@leitura.example'] });
    assert.equal(added.body.added, 2, added.text);
    // A segment built on another: pro plan AND a member of "Teams of ten or more".
    const nested = await project.api.post('/segments', {
      name: 'Pro in big teams',
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.plan', operator: 'equals', value: 'pro' },
              { field: `segment.${bigTeams}`, operator: 'memberOfSegment' },
            ],
          },
        ],
      },
    });
    assert.equal(nested.status, 201, nested.text);
    proInBigTeams = nested.body.id;
  });
  after(async () => {
    await server.close();
  });

  test('the list narrowed by a data filter, by segment membership, and with search; total counts the filtered set', async () => {
    const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
    const byData = await project.api.get(`/contacts?condition=${q(pro)}`);
    assert.equal(byData.status, 200, byData.text);
    assert.deepEqual(emailsOf(byData.body), ['ingrid.berg@fjord.example', 'kenji.sato@onsen.example', 'olga.ivanova@sever.example']);
    assert.equal(byData.body.total, 3);

    const inEither = {
      logic: 'OR',
      groups: [{ filters: [{ field: `segment.${handPicked}`, operator: 'memberOfSegment' }] }, { filters: [{ field: `segment.${bigTeams}`, operator: 'memberOfSegment' }] }],
    };
    const bySegment = await project.api.get(`/contacts?condition=${q(inEither)}&search=fjord`);
    assert.deepEqual(emailsOf(bySegment.body), ['ingrid.berg@fjord.example']);
    assert.equal(bySegment.body.total, 1);

    // Paging keeps the filter: the four contacts hand-picked or in Tromsø, two to a page by address.
    const pickedOrTromso = { logic: 'OR', groups: [inEither.groups[0]!, { filters: [{ field: 'data.city', operator: 'equals', value: 'Tromsø' }] }] };
    const first = await project.api.get(`/contacts?condition=${q(pickedOrTromso)}&limit=2&sort=email&dir=asc`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.data.map((c: { email: string }) => c.email),
      ['ana.souza@leitura.example', 'ingrid.berg@fjord.example'],
    );
    assert.equal(first.body.total, 4);
    assert.equal(first.body.hasMore, true);
    const second = await project.api.get(`/contacts?condition=${q(pickedOrTromso)}&limit=2&sort=email&dir=asc&cursor=${encodeURIComponent(first.body.cursor)}`);
    assert.deepEqual(
      second.body.data.map((c: { email: string }) => c.email),
      ['kenji.sato@onsen.example', 'sigrid.dahl@fjord.example'],
    );
    assert.equal(second.body.hasMore, false);
  });

  test('a condition the list cannot use is refused at its filter, as the export refuses it', async () => {
    const unknownOperator = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'resembles', value: 'pro' }] }] };
    const bad = await project.api.get(`/contacts?condition=${q(unknownOperator)}`);
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    assert.match(bad.body.error.errors[0].field, /^condition\.groups\.0\.filters\.0/);
    const missing = { logic: 'AND', groups: [{ filters: [{ field: 'segment.00000000-0000-4000-8000-000000000000', operator: 'memberOfSegment' }] }] };
    const unknownSegment = await project.api.get(`/contacts?condition=${q(missing)}`);
    assert.equal(unknownSegment.status, 422, unknownSegment.text);
    assert.match(unknownSegment.body.error.errors[0].message, /does not exist/);
    const notJson = await project.api.get('/contacts?condition=%7Bplan');
    assert.equal(notJson.status, 422);
    assert.equal(notJson.body.error.errors[0].field, 'condition');
  });

  test("a contact's segments: dynamic, static and built on another segment, live after its data changes", async () => {
    const names = async (email: string) => {
      const res = await project.api.get(`/contacts/${ids[email]}/segments`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((s: { id: string; name: string; type: string; trackMembership: boolean }) => `${s.name} (${s.type})`);
    };
    assert.deepEqual(await names('ingrid.berg@fjord.example'), ['Pro in big teams (DYNAMIC)', 'Teams of ten or more (DYNAMIC)']);
    assert.deepEqual(await names('kenji.sato@onsen.example'), ['Hand-picked for the beta — ベータ (STATIC)']);
    assert.deepEqual(await names('sigrid.dahl@fjord.example'), []);
    // Sigrid's team grows: she is in the dynamic segment at once, not in the nested one (free plan).
    assert.equal((await project.api.patch(`/contacts/${ids['sigrid.dahl@fjord.example']}`, { data: { seats: 25 } })).status, 200);
    assert.deepEqual(await names('sigrid.dahl@fjord.example'), ['Teams of ten or more (DYNAMIC)']);
    const one = (await project.api.get(`/contacts/${ids['olga.ivanova@sever.example']}/segments`)).body.data.find((s: { id: string }) => s.id === proInBigTeams);
    assert.deepEqual(one, { id: proInBigTeams, name: 'Pro in big teams', type: 'DYNAMIC', trackMembership: false });

    assert.equal((await project.api.get('/contacts/00000000-0000-4000-8000-000000000000/segments')).status, 404);
    const other = await createProject(server.url);
    assert.equal((await other.api.get(`/contacts/${ids['kenji.sato@onsen.example']}/segments`)).status, 404, "another project's contact is not found");
  });

  test("a contact's executions of every workflow, newest first, with the workflow's name, paged", async () => {
    const onboarding = await buildWorkflow(project.api, { name: 'Onboarding — 入門', eventName: 'trial.started' }, [{ type: 'DELAY', config: { amount: 2, unit: 'days' } }]);
    const winBack = await buildWorkflow(project.api, { name: 'Win-back', eventName: 'plan.cancelled' }, [{ type: 'DELAY', config: { amount: 7, unit: 'days' } }]);
    await enable(project.api, onboarding.id);
    await enable(project.api, winBack.id);
    const contactId = ids['olga.ivanova@sever.example']!;
    for (const workflow of [onboarding, winBack]) {
      const started = await project.api.post(`/workflows/${workflow.id}/executions`, { contactId, context: { source: 'test' } });
      assert.equal(started.status, 201, started.text);
    }
    const res = await project.api.get(`/contacts/${contactId}/executions`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, 2);
    assert.deepEqual(
      res.body.data.map((e: { workflowName: string; workflowId: string; contactId: string }) => [e.workflowName, e.workflowId, e.contactId]),
      [
        ['Win-back', winBack.id, contactId],
        ['Onboarding — 入門', onboarding.id, contactId],
      ],
    );
    const paged = await project.api.get(`/contacts/${contactId}/executions?limit=1`);
    assert.equal(paged.body.hasMore, true);
    const next = await project.api.get(`/contacts/${contactId}/executions?limit=1&cursor=${encodeURIComponent(paged.body.cursor)}`);
    assert.deepEqual(
      next.body.data.map((e: { workflowName: string }) => e.workflowName),
      ['Onboarding — 入門'],
    );
    assert.equal(next.body.hasMore, false);

    const none = await project.api.get(`/contacts/${ids['ana.souza@leitura.example']}/executions`);
    assert.deepEqual([none.body.data, none.body.total], [[], 0]);
    assert.equal((await project.api.get('/contacts/00000000-0000-4000-8000-000000000000/executions')).status, 404);
  });
});
