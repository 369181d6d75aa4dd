import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GLOBAL_TABLES } from '../../src/db/distribution.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { citusWorkers } from '../kit/citus.ts';
import {
  COLOCATION_ANCHOR,
  citusKinds,
  connectDatabase,
  connectNode,
  foreignKeys,
  type Kind,
  kindOf,
  projectPlacements,
  tableShapes,
  UNMANAGED_TABLES,
  uniqueIndexes,
} from '../kit/citus-placement.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const onCitus = TEST_DATABASE_URL !== undefined && (await citusWorkers(TEST_DATABASE_URL)) !== undefined;

// A newsletter with the shapes real ones carry: paragraphs, a list, a table, non-Latin scripts and a long line.
const BODY = `<h1>Новости за ноябрь, {{ name ?? "друг" }}</h1>
<p>This month we moved every project's data next to the rest of it, so a page of your contacts, your
events and your campaigns is read from one place. 今月のお知らせ：配信の速度が上がりました。</p>
<ul><li>Segments count faster</li><li>Campaigns start sooner</li><li>Συχνές ερωτήσεις: απαντήσεις</li></ul>
<table><tr><th>Plan</th><th>Price</th></tr><tr><td>{{ plan }}</td><td>€12</td></tr></table>
<p>${'A deliberately long line of text that goes on past any wrapping width to make sure nothing breaks. '.repeat(6)}</p>`;

/** A project with something in every part the API writes: contacts, events, a template, a segment, a campaign, emails, a suppression, a workflow. */
async function populate(server: TestServer, dns: DnsServer): Promise<TestProject> {
  const project = await createProject(server.url);
  const domain = await verifiedDomain(project, dns);
  const from = `news@${domain.domain}`;
  const names = ['Ада Лавлейс', '山田 花子', 'Ηλέκτρα Παππά', 'Grace Hopper', 'محمد علي', 'Zoë Ångström'];
  const contacts: string[] = [];
  for (const [i, name] of names.entries()) {
    const res = await project.api.post('/contacts', { email: uniqueEmail('reader'), data: { name, plan: i % 2 ? 'pro' : 'free', seats: i + 1 } });
    assert.equal(res.status, 201, res.text);
    contacts.push(res.body.email);
  }
  for (const email of contacts) {
    const res = await project.publicApi.post('/v1/track', { email, event: 'article-read', data: { article: 'Новости за ноябрь', minutes: 4 } });
    assert.equal(res.status, 200, res.text);
  }
  const template = await project.api.post('/templates', { name: 'November news', subject: 'Новости, {{ name }}', body: BODY, from, fromName: 'Acme News', type: 'MARKETING' });
  assert.equal(template.status, 201, template.text);
  const segment = await project.api.post('/segments', {
    name: 'Pro readers',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  });
  assert.equal(segment.status, 201, segment.text);
  const campaign = await project.api.post('/campaigns', { name: 'November', subject: 'Новости за ноябрь', body: BODY, from, audienceType: 'SEGMENT', segmentId: segment.body.id });
  assert.equal(campaign.status, 201, campaign.text);
  const sent = await project.api.post('/v1/send', { to: contacts[0], template: template.body.id, data: { plan: 'free' } });
  assert.equal(sent.status, 200, sent.text);
  const suppressed = await project.api.post('/suppressions', { email: uniqueEmail('complained'), reason: 'COMPLAINT' });
  assert.equal(suppressed.status, 201, suppressed.text);
  const workflow = await project.api.post('/workflows', { name: 'Welcome', description: 'first week', eventName: 'signed-up' });
  assert.equal(workflow.status, 201, workflow.text);
  const step = await project.api.post(`/workflows/${workflow.body.id}/steps`, { type: 'DELAY', name: 'Wait a day', config: { amount: 1, unit: 'days' } });
  assert.equal(step.status, 201, step.text);
  return project;
}

// The tables populate() must have written for the project: the check below is only as good as the rows it finds.
const WRITTEN = ['contacts', 'events', 'event_names', 'templates', 'segments', 'campaigns', 'emails', 'suppressions', 'workflows', 'workflow_steps'];

describe(`distribution by project (docs/citus.md)${onCitus ? ' on a Citus cluster' : ''}`, () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    dns = await startDnsServer();
    server = await startTestServer({ DNS_SERVERS: dns.address });
  });
  after(async () => {
    await server.close();
    await dns.close();
  });

  test('every table the migrations create has a distribution decision that Citus can hold', async () => {
    const shapes = (await tableShapes(server.deps.db)).filter((t) => !UNMANAGED_TABLES.has(t.name));
    const kinds = new Map<string, Kind>();
    for (const table of shapes) {
      const kind = kindOf(table);
      assert.ok(kind, `${table.name} has no project_id in its primary key and no entry in GLOBAL_TABLES (src/db/distribution.ts): decide how it is distributed`);
      kinds.set(table.name, kind);
      if (table.columns.includes('project_id') && kind !== 'distributed') assert.ok(table.name in GLOBAL_TABLES, `${table.name} holds project rows but is not distributed`);
    }
    for (const name of Object.keys(GLOBAL_TABLES)) assert.ok(kinds.has(name), `GLOBAL_TABLES names ${name}, which no migration creates`);
    const distributed = [...kinds].filter(([, kind]) => kind === 'distributed').map(([name]) => name);
    assert.ok(distributed.includes(COLOCATION_ANCHOR));
    for (const name of WRITTEN) assert.equal(kinds.get(name), 'distributed', `${name} is distributed by project`);
    assert.ok(distributed.length >= 30, `the project tables are distributed (${distributed.length}: ${distributed.join(', ')})`);

    // What Citus requires of each decision, checked here so a migration breaking it fails on every database.
    for (const index of await uniqueIndexes(server.deps.db)) {
      if (kinds.get(index.table) === 'distributed') assert.ok(index.columns.includes('project_id'), `unique index ${index.index} on ${index.table} must include project_id`);
    }
    for (const key of await foreignKeys(server.deps.db)) {
      const [child, parent] = [kinds.get(key.child), kinds.get(key.parent)];
      if (!child || !parent) continue;
      const where = `${key.name} (${key.child} → ${key.parent})`;
      if (child === 'distributed' && parent === 'distributed') {
        const at = key.childColumns.indexOf('project_id');
        assert.ok(at >= 0 && key.parentColumns[at] === 'project_id', `${where}: a key between distributed tables must match project_id to project_id`);
      } else if (child === 'distributed' || child === 'reference') {
        assert.equal(parent, 'reference', `${where}: a ${child} table may only reference a reference table`);
      } else {
        assert.notEqual(parent, 'distributed', `${where}: a coordinator table cannot reference a distributed one`);
      }
    }
    if (!onCitus) return;
    const coordinator = await connectDatabase(server.env.DATABASE_URL!);
    try {
      const managed = await citusKinds(coordinator);
      for (const [name, kind] of kinds) assert.equal(managed.get(name)?.kind, kind, `${name} is ${kind} in Citus' metadata`);
      const anchor = managed.get(COLOCATION_ANCHOR)!.colocationId;
      for (const name of distributed) assert.equal(managed.get(name)!.colocationId, anchor, `${name} is co-located with ${COLOCATION_ANCHOR}`);
    } finally {
      await coordinator.end();
    }
  });

  test(
    onCitus
      ? "a project's rows of every distributed table live on one worker, in the shard Citus routes its statements to"
      : 'a project populated through the API has rows in every part the co-location check reads on Citus',
    async () => {
      const project = await populate(server, dns);
      const other = await populate(server, dns);
      const counts = async (projectId: string) => {
        const out = new Map<string, number>();
        for (const table of WRITTEN)
          out.set(table, Number((await server.deps.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0]!.n));
        return out;
      };
      const mine = await counts(project.id);
      for (const [table, n] of mine) assert.ok(n > 0, `${table} has rows of the project`);
      assert.ok(mine.get('contacts')! >= 6);
      assert.ok(mine.get('events')! >= 6, 'a tracked event per contact');
      for (const [table, n] of await counts(other.id)) assert.ok(n > 0, `${table} has rows of the second project`);
      if (!onCitus) return;

      const workers = (await citusWorkers(TEST_DATABASE_URL!))!;
      const coordinator = await connectDatabase(server.env.DATABASE_URL!);
      const nodes = await Promise.all(workers.map((w) => connectNode(server.env.DATABASE_URL!, w)));
      try {
        for (const p of [project, other]) {
          const placements = await projectPlacements(coordinator, p.id);
          const managed = await citusKinds(coordinator);
          const distributed = [...managed]
            .filter(([, m]) => m.kind === 'distributed')
            .map(([name]) => name)
            .sort();
          assert.deepEqual(
            placements.map((pl) => pl.table),
            distributed,
            'one placement per distributed table',
          );
          const homes = new Set(placements.map((pl) => `${pl.host}:${pl.port}`));
          assert.equal(homes.size, 1, `one node holds the project's shard of every table: ${[...homes].join(', ')}`);
          const home = workers.findIndex((w) => homes.has(`${w.host}:${w.port}`));
          assert.ok(home >= 0, 'the project lives on a worker');
          // The rows themselves, read on the nodes: all in the shard on the home node, none elsewhere.
          for (const table of WRITTEN) {
            const placement = placements.find((pl) => pl.table === table)!;
            const [here] = (await nodes[home]!.query<{ n: string }>(`SELECT count(*) AS n FROM ${placement.shardName} WHERE project_id = $1`, [p.id])).rows;
            assert.equal(Number(here!.n), mine.get(table), `${table}: the project's rows are in ${placement.shardName} on its node`);
            const shards = await coordinator.query<{ name: string; port: number }>(
              `SELECT shard_name AS name, nodeport AS port FROM citus_shards WHERE table_name = $1::regclass AND nodeport <> $2`,
              [table, workers[home]!.port],
            );
            for (const shard of shards.rows) {
              const node = nodes[workers.findIndex((w) => w.port === shard.port)]!;
              const [there] = (await node.query<{ n: string }>(`SELECT count(*) AS n FROM ${shard.name} WHERE project_id = $1`, [p.id])).rows;
              assert.equal(Number(there!.n), 0, `${table}: no row of the project in ${shard.name} on another node`);
            }
          }
          // A statement for the project is routed to that one shard.
          const plan = (await coordinator.query(`EXPLAIN SELECT count(*) FROM events WHERE project_id = '${p.id}'`)).rows.map((r) => r['QUERY PLAN']).join('\n');
          assert.match(plan, /Task Count: 1\b/, plan);
          assert.ok(plan.includes(placements.find((pl) => pl.table === 'events')!.shardName), plan);
        }
      } finally {
        await Promise.all([coordinator.end(), ...nodes.map((n) => n.end())]);
      }
    },
  );
});
