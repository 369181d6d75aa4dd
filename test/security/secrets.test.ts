import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/index.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { PACKAGE_ROOT } from '../../src/paths.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { entryArgs } from '../kit/entry.ts';
import { client } from '../kit/http.ts';
import { receiver as mailReceiver } from '../kit/mailauth.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { prepareEnvironment } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { totpCode } from '../kit/totp.ts';

/** Every row of every table of the public schema, as text (every column). */
async function dumpEverything(db: Db): Promise<string> {
  const tables = await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
  assert.ok(tables.length > 20, 'the dump reads the product tables');
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${name.replaceAll('"', '""')}" t`);
    parts.push(...rows.map((r) => `${name}: ${r.row}`));
  }
  return parts.join('\n');
}

function runRotation(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, entryArgs('src/rotate-secrets'), {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('secrets at rest: a dump of every table reveals none; rotating SECRETS_KEY keeps DKIM signing and webhooks working', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let hooks: Receiver;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  // In this process (a spawned server may take minutes to start on a loaded machine); the rotation
  // command runs as its own process, as an operator runs it.
  let server: RunningServer | undefined;
  let project: TestProject;
  let from: string;
  let webhookSecret: string;
  let namedKey: string;
  let totpSecret: string;
  const keyA = randomBytes(32).toString('hex');
  const keyB = randomBytes(32).toString('base64url');
  const keyIdOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 8);
  const start = async (overrides: Record<string, string>) => startServer(loadConfig({ ...env, ...overrides }));
  const openDb = () => (env.DATABASE_URL ? openPostgres(env.DATABASE_URL, { poolSize: 1 }) : openPglite(join(env.DATA_DIR!, 'pg')));

  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    hooks = await startReceiver();
    ({ env, cleanup } = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true', SECRETS_KEY: keyA }));
    server = await start({});
    project = await createProject(server.url);
    from = `rechnungen@${(await verifiedDomain(project, dns)).domain}`;
    const endpoint = await project.api.post('/webhook-endpoints', { url: hooks.url('/mailroom'), events: ['*'] });
    assert.equal(endpoint.status, 201, endpoint.text);
    webhookSecret = endpoint.body.secret;
    const named = await client(server.url, { cookie: project.owner.cookie }).post(`/users/@me/projects/${project.id}/api-keys`, { name: 'Rechnungsdienst', scope: 'sending' });
    assert.equal(named.status, 201, named.text);
    namedKey = named.body.key;
    const owner = client(server.url, { cookie: project.owner.cookie });
    totpSecret = (await owner.post('/users/@me/totp')).body.secret;
    assert.equal((await owner.post('/users/@me/totp/confirm', { code: totpCode(totpSecret) })).status, 200);
    // The embedded database belongs to one process: the dump and the rotation run with the server stopped.
    await server.close();
    server = undefined;
  });
  after(async () => {
    await server?.close();
    await Promise.all([sink.close(), hooks.close(), dns.close()]);
    await cleanup();
  });

  async function assertDumpHoldsNoSecret(label: string, sealedBy: string) {
    const db = await openDb();
    try {
      const dump = await dumpEverything(db);
      assert.ok(dump.includes(project.publicKey), `${label}: the dump does hold the (public) rows it should`);
      for (const [what, value] of [
        ['the project secret key', project.secretKey],
        ['the named key', namedKey],
        ['the webhook secret', webhookSecret],
        ['the webhook secret key bytes', webhookSecret.replace(/^whsec_/, '')],
        ["the owner's TOTP secret", totpSecret],
      ] as const) {
        assert.ok(!dump.includes(value), `${label}: ${what} is in the dump in clear`);
      }
      assert.doesNotMatch(dump, /PRIVATE KEY/, `${label}: a DKIM private key is in the dump as PEM`);
      const keyIds = new Set([...dump.matchAll(/enc:v1:([0-9a-f]{8}):/g)].map((m) => m[1]));
      assert.deepEqual([...keyIds], [sealedBy], `${label}: every stored secret is sealed by the current key`);
    } finally {
      await db.close();
    }
  }

  test('before rotation: no secret key, DKIM private key or webhook secret in clear', async () => {
    await assertDumpHoldsNoSecret('sealed under the first key', keyIdOf(Buffer.from(keyA, 'hex')));
  });

  test('npm run secrets:rotate re-encrypts in place; a server with only the new key sends DKIM-signed mail and signed webhooks', async () => {
    const rotation = await runRotation({ ...env, SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    assert.equal(rotation.code, 0, rotation.output);
    const report = JSON.parse(rotation.output.trim().split('\n').at(-1)!);
    assert.ok(report.resealed.projects >= 1 && report.resealed.domains >= 1 && report.resealed.webhook_endpoints >= 1 && report.resealed.users >= 1, rotation.output);
    await assertDumpHoldsNoSecret('after rotation', keyIdOf(Buffer.from(keyB, 'base64url')));

    server = await start({ SECRETS_KEY: keyB });
    const api = client(server.url, { key: project.secretKey });
    const listed = await client(server.url, { cookie: project.owner.cookie }).get('/users/@me/projects');
    assert.equal(listed.body.data.find((p: { id: string }) => p.id === project.id)?.secretKey, project.secretKey, 'the secret key is shown again, decrypted');
    const to = 'buchhaltung@example.net';
    const sent = await client(server.url, { key: namedKey }).post('/v1/send', {
      from: { name: 'Rechnungen', email: from },
      to: [to],
      subject: 'Rechnung Nr. 2026-118 — 請求書',
      body: '<p>Guten Tag,</p><p>anbei die Rechnung für November:</p><ul><li>Beratung: 4 Stunden</li><li>Reisekosten</li></ul>',
    });
    assert.equal(sent.status, 200, sent.text);
    const [message] = await sink.waitForMessages(1, 30_000);
    const verdict = await mailReceiver(dns)(message!.raw, { ip: '127.0.0.1', sender: message!.envelope.from });
    assert.equal(verdict.dkim, 'pass', verdict.detail);
    assert.equal(verdict.dkimDomain, from.split('@')[1]);
    assert.equal((await api.get('/contacts')).status, 200);
    // The TOTP secret opens under the new key: two-factor log-in still works.
    const challenge = (await client(server.url).post('/auth/login', { email: project.owner.email, password: project.owner.password })).body.challenge;
    // The next code the app shows: the one that confirmed enrolment is spent (RFC 6238 §5.2).
    const secondStep = await client(server.url).post('/auth/login/totp', { challenge, code: totpCode(totpSecret, 1) });
    assert.equal(secondStep.status, 200, secondStep.text);

    for (let i = 0; i < 300 && hooks.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const delivery = hooks.received[0];
    assert.ok(delivery, 'a webhook was delivered after the rotation');
    assert.doesNotThrow(() => new Webhook(webhookSecret).verify(delivery.body, delivery.headers as Record<string, string>));
  });
});
