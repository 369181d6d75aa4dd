import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { citusWorkers } from '../kit/citus.ts';
import { connectDatabase, connectNode, projectPlacements } from '../kit/citus-placement.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const onCitus = TEST_DATABASE_URL !== undefined && (await citusWorkers(TEST_DATABASE_URL)) !== undefined;

type Ack = { event: string; contact: string; startedAt: number; endedAt: number };

/** `/v1/track` from `clients` loops at once until stop(): every answer sorted into acknowledged (200) or not. */
function trackTraffic(project: TestProject, clients: number) {
  const acks: Ack[] = [];
  const refused: string[] = [];
  // A few hundred readers coming back: new contacts at first, then mostly existing ones.
  const readers = Array.from({ length: 300 }, (_, i) => uniqueEmail(i % 3 ? 'reader' : 'subscriber'));
  const titles = ['Начало работы', '導入ガイド', 'Pricing', 'Новости ноября', 'POST /v1/track'];
  const pages = ['/docs/getting-started', '/docs/導入', '/pricing', '/blog/новости-ноября', '/docs/api#v1-track'];
  let running = true;
  const loop = async (n: number) => {
    for (let i = 0; running; i++) {
      const startedAt = performance.now();
      const res = await project.publicApi.post('/v1/track', {
        email: readers[(n * 37 + i * 11) % readers.length],
        event: 'page-view',
        data: {
          path: pages[i % pages.length],
          title: titles[i % titles.length],
          referrer: i % 2 ? 'https://news.example.test/' : null,
          seconds: (i % 90) + 5,
          client: n,
          sequence: i,
        },
      });
      if (res.status === 200) acks.push({ event: res.body.data.event, contact: res.body.data.contact, startedAt, endedAt: performance.now() });
      else refused.push(`${res.status} ${res.text}`);
    }
  };
  const loops = Array.from({ length: clients }, (_, n) => loop(n));
  return {
    acks,
    refused,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * A logical move needs a free background worker on the receiving node for its subscription's apply
 * worker (max_worker_processes, shared with Citus' maintenance daemon of every database there).
 * Without one it would wait for a slot forever, so the move then blocks writes instead.
 */
async function transferMode(url: string, node: { host: string; port: number }): Promise<'force_logical' | 'block_writes'> {
  const client = await connectNode(url, node);
  try {
    const [row] = (
      await client.query<{ free: number }>(
        `SELECT current_setting('max_worker_processes')::int - count(*)::int AS free FROM pg_stat_activity
        WHERE backend_type NOT IN ('client backend', 'autovacuum launcher', 'autovacuum worker', 'background writer', 'checkpointer', 'walwriter', 'walsender', 'archiver', 'startup', 'walreceiver')`,
      )
    ).rows;
    return row!.free >= 2 ? 'force_logical' : 'block_writes';
  } finally {
    await client.end();
  }
}

describe(
  onCitus ? "moving a busy project's shards to the other worker while /v1/track runs" : '/v1/track under steady load (on Citus, while the project moves to the other worker)',
  () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000000' });
    });
    after(() => server.close());

    test(onCitus ? 'loses no acknowledged event, and every table of the project ends on the other worker' : 'stores every event it acknowledged, and only those', async (t) => {
      const project = await createProject(server.url);
      const quiet = await createProject(server.url);
      const bystander = await quiet.publicApi.post('/v1/track', { email: uniqueEmail('bystander'), event: 'signup' });
      assert.equal(bystander.status, 200, bystander.text);
      const traffic = trackTraffic(project, 8);
      await sleep(1_000);
      const moveStarted = performance.now();
      let [from, to, mode] = ['', '', ''];
      if (onCitus) {
        const workers = (await citusWorkers(TEST_DATABASE_URL!))!;
        const coordinator = await connectDatabase(server.env.DATABASE_URL!);
        try {
          const before = await projectPlacements(coordinator, project.id);
          const home = workers.find((w) => w.port === before[0]!.port)!;
          const target = workers.find((w) => w !== home)!;
          [from, to] = [`${home.host}:${home.port}`, `${target.host}:${target.port}`];
          const anchor = before.find((p) => p.table === 'contacts')!;
          mode = await transferMode(server.env.DATABASE_URL!, target);
          // Moves the shard and every shard co-located with it: the project's rows of every table.
          // Logically, writes go on while the rows are copied and pause only for the switch-over;
          // blocking writes, they wait for the copy. Either way no answered write may be lost.
          await coordinator.query('SET statement_timeout = 180000');
          await coordinator.query('SELECT citus_move_shard_placement($1::bigint, $2, $3, $4, $5, shard_transfer_mode => $6::citus.shard_transfer_mode)', [
            anchor.shardId,
            home.host,
            home.port,
            target.host,
            target.port,
            mode,
          ]);
        } finally {
          await coordinator.end();
        }
      } else {
        await sleep(3_000);
      }
      const moveEnded = performance.now();
      await sleep(500);
      await traffic.stop();

      assert.deepEqual(traffic.refused, [], 'every track call was answered 200');
      const during = traffic.acks.filter((a) => a.startedAt < moveEnded && a.endedAt > moveStarted).length;
      assert.ok(during > 8, `calls were in flight while ${onCitus ? `the shards moved (${mode})` : 'the load ran'}: ${during} of ${traffic.acks.length}`);
      t.diagnostic(`${traffic.acks.length} calls answered, ${during} of them during ${onCitus ? `the ${mode} move (${Math.round(moveEnded - moveStarted)} ms)` : 'the load'}`);
      const ids = traffic.acks.map((a) => a.event);
      assert.equal(new Set(ids).size, ids.length, 'an event id per acknowledged call');
      const stored = await server.deps.db.query<{ id: string; contact_id: string }>("SELECT id, contact_id FROM events WHERE project_id = $1 AND name = 'page-view'", [project.id]);
      const byId = new Map(stored.map((e) => [e.id, e.contact_id]));
      const lost = traffic.acks.filter((a) => byId.get(a.event) !== a.contact);
      assert.deepEqual(
        lost.map((a) => a.event),
        [],
        `acknowledged events missing (or with another contact) after the ${onCitus ? 'move' : 'load'}`,
      );
      assert.equal(stored.length, ids.length, 'no event stored that was not acknowledged');
      const contacts = new Set(traffic.acks.map((a) => a.contact));
      const [{ n }] = (await server.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[])', [
        project.id,
        [...contacts],
      ])) as [{ n: string }];
      assert.equal(Number(n), contacts.size, 'every acknowledged contact is stored');
      const other = await quiet.api.get('/events?name=signup');
      assert.equal(other.body.total, 1, 'the other project keeps its event');
      if (!onCitus) return;

      const coordinator = await connectDatabase(server.env.DATABASE_URL!);
      try {
        const after = await projectPlacements(coordinator, project.id);
        assert.deepEqual([...new Set(after.map((p) => `${p.host}:${p.port}`))], [to], `every table of the project moved from ${from} to ${to}`);
        // Read on the target node itself: the events are in the moved shard there.
        const events = after.find((p) => p.table === 'events')!;
        const node = await connectNode(server.env.DATABASE_URL!, { host: events.host, port: events.port });
        try {
          const [row] = (await node.query<{ n: string }>(`SELECT count(*) AS n FROM ${events.shardName} WHERE project_id = $1 AND name = 'page-view'`, [project.id])).rows;
          assert.equal(Number(row!.n), ids.length);
        } finally {
          await node.end();
        }
      } finally {
        await coordinator.end();
      }
    });
  },
);
