import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, makeContacts, seedContacts, waitForCampaign } from '../kit/campaigns.ts';
import { citusWorkers } from '../kit/citus.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer, TEST_DATABASE_URL } from '../kit/server.ts';

// docs/streams.md, "SEND_RATE_PER_SECOND across workers": two worker processes on one database
// send at the project's rate together, not each. Two processes need a database they can share:
// the embedded one belongs to one process, so this file reports itself skipped in the embedded pass.
const SHARED_DATABASE = {
  skip: TEST_DATABASE_URL ? false : 'two worker processes need a shared PostgreSQL (the embedded database belongs to one process); runs in the PostgreSQL and Citus passes',
} as const;

const RATE = 50;
/** About 14 s of mail at the rate: long enough for both workers to take turns many times. */
const CAMPAIGN_SIZE = 600;
const RESETS = 10;

type Grant = { granted: number; at: number };

/**
 * Records every take of the database's token buckets with the bucket's clock (the row's
 * refilled_at) in a table of the test's own database (in a schema of its own: the server
 * distributes the tables of `public`), by a trigger on send_rates. On Citus the trigger runs on
 * each shard of send_rates, on the node that holds it, and writes to a table of that node (the
 * function and the table are made on every node, not distributed); `read` gathers them from every
 * node. `remove` takes it all away again, also after a failed `install`: a Citus test database
 * goes back to a pool, emptied but not made again.
 */
function grantLog(databaseUrl: string) {
  let found: Promise<{ citus: boolean; nodes: string[] }> | undefined;
  const cluster = () =>
    (found ??= (async () => {
      const workers = TEST_DATABASE_URL ? await citusWorkers(TEST_DATABASE_URL) : undefined;
      const nodeUrl = (port: number) => {
        const url = new URL(databaseUrl);
        url.port = String(port);
        return url.toString();
      };
      return { citus: Boolean(workers), nodes: [databaseUrl, ...(workers ?? []).map((w) => nodeUrl(w.port))] };
    })());
  // On Citus, made on each node as it is rather than propagated from the coordinator.
  const onEveryNode = async (sql: string) => {
    const { citus, nodes } = await cluster();
    for (const url of nodes) await withClient(url, (client) => client.query(citus ? `SET citus.enable_ddl_propagation = off; ${sql}` : sql));
  };
  // Its own statement after the SET: Citus sends the text of a multi-statement query to the shards as it is.
  const onSendRates = async (sql: string) => {
    const { citus } = await cluster();
    await withClient(databaseUrl, async (client) => {
      if (citus) await client.query('SET citus.enable_unsafe_triggers = on');
      await client.query(sql);
    });
  };
  return {
    async install() {
      await onEveryNode(`
        CREATE SCHEMA IF NOT EXISTS test_probe;
        CREATE TABLE IF NOT EXISTS test_probe.rate_grants (project_id uuid NOT NULL, granted int NOT NULL, at timestamptz NOT NULL);
        CREATE OR REPLACE FUNCTION test_probe.log_rate_grant() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO test_probe.rate_grants (project_id, granted, at) VALUES (NEW.project_id, NEW.granted, NEW.refilled_at);
          RETURN NULL;
        END $$;`);
      await onSendRates('CREATE TRIGGER test_rate_grants AFTER INSERT OR UPDATE ON send_rates FOR EACH ROW EXECUTE FUNCTION test_probe.log_rate_grant()');
    },
    async read(projectId: string): Promise<Grant[]> {
      const grants: Grant[] = [];
      for (const url of (await cluster()).nodes) {
        const rows = await withClient(url, (client) =>
          client.query<{ granted: number; at: Date }>('SELECT granted, at FROM test_probe.rate_grants WHERE project_id = $1 AND granted > 0', [projectId]),
        );
        grants.push(...rows.rows.map((row) => ({ granted: row.granted, at: row.at.getTime() })));
      }
      return grants.sort((a, b) => a.at - b.at);
    },
    async remove() {
      await onSendRates('DROP TRIGGER IF EXISTS test_rate_grants ON send_rates');
      await onEveryNode('DROP SCHEMA IF EXISTS test_probe CASCADE');
    },
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe(`SEND_RATE_PER_SECOND=${RATE} holds for two worker processes together (docs/streams.md)`, SHARED_DATABASE, () => {
  let dns: DnsServer;
  let relay: CountingRelay;
  before(async () => {
    dns = await startDnsServer();
    relay = await startCountingRelay();
  });
  after(async () => {
    await relay?.close();
    await dns?.close();
  });

  test(`a ${CAMPAIGN_SIZE}-recipient campaign and ${RESETS} transactional messages leave at most ${RATE} a second from both workers, each worker sending a share`, async (t) => {
    const environment = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: relay.url, SEND_RATE_PER_SECOND: String(RATE), RATE_LIMIT_PER_MINUTE: '100000' });
    const databaseUrl = environment.env.DATABASE_URL!;
    const instanceIds = () => withClient(databaseUrl, async (client) => (await client.query<{ id: number }>('SELECT id FROM worker_instances')).rows.map((r) => r.id));
    const processes: SpawnedServer[] = [];
    const grants = grantLog(databaseUrl);
    try {
      await grants.install();
      // The API first (it migrates, so no worker races it), then the two workers, one at a time to
      // tell their instance ids apart.
      const api = await spawnServer({ ...environment.env, ROLE: 'api' });
      processes.push(api);
      const workerIds: number[] = [];
      for (let i = 0; i < 2; i++) {
        const known = new Set(await instanceIds());
        processes.push(await spawnServer({ ...environment.env, ROLE: 'worker' }));
        const mine = (await instanceIds()).filter((id) => !known.has(id));
        assert.equal(mine.length, 1, `worker ${i + 1} registered one instance`);
        workerIds.push(mine[0]!);
      }

      const project = await createProject(api.url);
      const domain = (await verifiedDomain(project, dns)).domain;
      const contacts = makeContacts('paced', CAMPAIGN_SIZE);
      await seedContacts(project.api, contacts);
      const campaign = await createCampaign(project.api, campaignBody(`news@${domain}`, { subject: 'Your December statement, {{name ?? "customer"}}' }));
      const requested = Date.now();
      assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
      const resets: string[] = [];
      for (let i = 0; i < RESETS; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const res = await project.api.post('/v1/send', {
          to: `reset-${i}@customers.example.test`,
          from: `security@${domain}`,
          subject: 'Ваш код входа / 您的登录代码',
          body: `<p>Your sign-in code is <b>${100_000 + i}</b>. It expires in ten minutes.</p>`,
        });
        assert.equal(res.status, 200, res.text);
        resets.push(res.body.data.emails[0].email);
      }
      await waitForCampaign(project.api, campaign.id, ['SENT'], 120_000);
      for (const id of resets) await waitForStatus(project.api, id, ['DELIVERED'], 30_000);
      const total = CAMPAIGN_SIZE + RESETS;
      const lastArrival = Math.max(...relay.messages.map((m) => m.receivedAt));
      const taken = await grants.read(project.id);
      const senders = await withClient(databaseUrl, async (client) => {
        const rows = await client.query<{ claimed_by: number; n: number; attempts: number }>(
          `SELECT claimed_by, count(*)::int AS n, max(attempts)::int AS attempts FROM emails WHERE project_id = $1 AND status = 'DELIVERED' GROUP BY claimed_by`,
          [project.id],
        );
        return rows.rows;
      });

      await t.test('every message arrived once, each after one attempt', () => {
        const counts = relay.countByRecipient();
        assert.equal(relay.messages.length, total);
        assert.equal(counts.size, total);
        assert.ok(
          senders.every((s) => s.attempts === 1),
          JSON.stringify(senders),
        );
      });

      await t.test(`on the bucket's clock, no second granted more than one bucket and one second's refill (${2 * RATE})`, () => {
        // Every token the buckets granted became one of the messages: the log misses no take.
        assert.equal(
          taken.reduce((sum, g) => sum + g.granted, 0),
          total,
        );
        let busiest = 0;
        for (const g of taken)
          busiest = Math.max(
            busiest,
            taken.filter((h) => h.at >= g.at && h.at < g.at + 1_000).reduce((sum, h) => sum + h.granted, 0),
          );
        t.diagnostic(`${taken.length} takes; at most ${busiest} tokens granted within one second`);
        assert.ok(busiest <= 2 * RATE, `${busiest} tokens granted within one second`);
      });

      await t.test(`on the relay's clock, ${total} messages took at least their time at ${RATE} a second`, () => {
        // Every grant came after the send request and before the last arrival: one bucket plus the
        // refill of that span is the most that can have arrived. Unpaced, both workers together
        // send the lot in about a second.
        const spanSeconds = (lastArrival - requested) / 1000;
        t.diagnostic(`${total} messages in ${spanSeconds.toFixed(1)} s from the request: ${(total / spanSeconds).toFixed(1)} a second`);
        assert.ok(total <= RATE * (1 + spanSeconds), `${total} messages arrived within ${spanSeconds} s of the request`);
      });

      await t.test('both worker processes sent a share of the mail', () => {
        const byWorker = workerIds.map((id) => senders.find((s) => s.claimed_by === id)?.n ?? 0);
        t.diagnostic(`messages per worker: ${byWorker.join(' and ')}`);
        assert.equal(
          byWorker.reduce((sum, n) => sum + n, 0),
          total,
          `every message was sent by one of the two workers: ${JSON.stringify(senders)}`,
        );
        for (const n of byWorker) assert.ok(n >= total / 10, `a worker sent ${n} of ${total}`);
      });
    } finally {
      for (const child of processes.reverse()) await child.stop('SIGKILL');
      await grants.remove();
      await environment.cleanup();
    }
  });
});
