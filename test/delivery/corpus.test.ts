import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type CorpusMessage, FEATURES, generateCorpus } from '../kit/corpus.ts';
import type { DnsServer } from '../kit/dns.ts';
import { publishRecords, uniqueDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { receiver, type Verdicts } from '../kit/mailauth.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, enable, track } from '../kit/workflows.ts';

/**
 * The deliverability proof: messages of varied real content, through every sending path, verified as a
 * receiver would (mailauth) against the records published exactly as POST /domains returned them,
 * with the relay's address as SPF_MECHANISMS authorizes it. Over SMTP and in the outbox.
 */
const PATHS = ['send', 'template-send', 'campaign-marketing', 'campaign-transactional', 'campaign-test', 'workflow'] as const;
type SendPath = (typeof PATHS)[number];
const CORPUS = generateCorpus(60);
const RELAY_IP = '127.0.0.1';
const SYSTEM_DOMAIN = 'system.mailroom-corpus.example.test';

const pathOf = (message: CorpusMessage): SendPath => PATHS[message.index % PATHS.length]!;
const recipientOf = (message: CorpusMessage, run: string) => `corpus-${run}-${message.index}@recipients.example.test`;

type Received = { to: string; raw: Buffer };

for (const mode of ['smtp', 'outbox'] as const) {
  describe(`every message verifies: DKIM, SPF and DMARC pass on any content, every path (${mode})`, () => {
    let dns: DnsServer;
    let sink: SmtpSink | undefined;
    let server: TestServer;
    const run = Math.random().toString(36).slice(2, 8);

    before(async () => {
      sink = mode === 'smtp' ? await startSmtpSink() : undefined;
      ({ server, dns } = await startTestServerWithDns({
        SPF_MECHANISMS: `ip4:${RELAY_IP}`,
        SYSTEM_FROM: `Mailroom <accounts@${SYSTEM_DOMAIN}>`,
        ...(sink ? { SMTP_URL: sink.url } : {}),
      }));
    });
    after(async () => {
      await server.close();
      await sink?.close();
    });

    /** Every message that arrived so far: the relay's, or the outbox's `.eml` files as written. */
    async function received(): Promise<Received[]> {
      if (sink) return sink.messages.map((m) => ({ to: m.envelope.to[0]!, raw: m.raw }));
      const dir = join(server.dataDir, 'outbox');
      let files: string[] = [];
      try {
        files = readdirSync(dir).filter((name) => name.endsWith('.eml'));
      } catch {}
      return Promise.all(
        files.map(async (name) => {
          const raw = readFileSync(join(dir, name));
          const parsed = await simpleParser(raw);
          return { to: (parsed.to as { value: Array<{ address: string }> }).value[0]!.address, raw };
        }),
      );
    }

    async function arrivals(expected: (to: string) => boolean, count: number, timeoutMs: number): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await received()).filter((m) => expected(m.to.toLowerCase()));
        if (found.length >= count || Date.now() > deadline) return found;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    test(`${CORPUS.length} corpus messages through ${PATHS.join(', ')}`, async () => {
      const project = await createProject(server.url);
      const created = await project.api.post('/domains', { domain: uniqueDomain('corpus') });
      assert.equal(created.status, 201, created.text);
      const spf = created.body.records.find((record: { name: string; value: string }) => record.value.startsWith('v=spf1'));
      assert.equal(spf.value, `v=spf1 ip4:${RELAY_IP} ~all`);
      // Published exactly as returned: DKIM, SPF and DMARC.
      publishRecords(dns, created.body, true);
      const verified = await project.api.get(`/domains/${created.body.id}/verify`);
      assert.equal(verified.body.status, 'verified', verified.text);
      assert.deepEqual(
        verified.body.records.map((record: { state: string }) => record.state),
        ['found', 'found', 'found'],
      );
      const from = `shop@${created.body.domain}`;

      await Promise.all(CORPUS.map((message) => sendThrough(project, pathOf(message), message, from, recipientOf(message, run))));

      const mine = new Map(CORPUS.map((message) => [recipientOf(message, run), message]));
      const arrived = await arrivals((to) => mine.has(to), CORPUS.length, 45_000);
      const missing = CORPUS.filter((message) => !arrived.some((m) => m.to.toLowerCase() === recipientOf(message, run)));
      assert.deepEqual(
        missing.map((m) => `${m.index} (${pathOf(m)})`),
        [],
        'every message arrives',
      );
      const twice = [...mine].filter(([to]) => arrived.filter((m) => m.to.toLowerCase() === to).length > 1).map(([, m]) => `${m.index} (${pathOf(m)})`);
      assert.equal(arrived.length, CORPUS.length, `one message each; more than one for: ${twice.join(', ')}`);

      const authenticate = receiver(dns);
      const failures: string[] = [];
      const tally = new Map<SendPath, number>();
      for (const message of arrived) {
        const source = mine.get(message.to.toLowerCase())!;
        const verdicts: Verdicts = await authenticate(message.raw, { ip: RELAY_IP, sender: from });
        if (verdicts.dkim !== 'pass' || verdicts.dkimDomain !== created.body.domain || verdicts.spf !== 'pass' || verdicts.dmarc !== 'pass') {
          failures.push(`message ${source.index} via ${pathOf(source)} [${source.features.join(', ')}]: ${verdicts.detail}`);
        }
        tally.set(pathOf(source), (tally.get(pathOf(source)) ?? 0) + 1);
        // The content arrived too, not only a signature over it.
        const parsed = await simpleParser(message.raw);
        assert.match(parsed.html || '', new RegExp(`Order #${1000 + source.index}\\b`));
      }
      assert.deepEqual(failures, [], `${failures.length} of ${arrived.length} messages did not pass`);
      for (const path of PATHS) assert.ok((tally.get(path) ?? 0) >= 10, `${path}: ${tally.get(path)} messages`);
      // Every content feature went through the checks many times.
      for (const feature of FEATURES) assert.ok(CORPUS.filter((m) => m.features.includes(feature)).length >= 10, feature);
    });

    test('the server’s own mail (password reset) passes DKIM, SPF and DMARC with SYSTEM_FROM’s records', async () => {
      const config = (await client(server.url).get('/config')).body.systemMail;
      assert.equal(config.signed, true);
      for (const record of config.records) dns.set(record.name, 'TXT', [record.value]);
      const account = await createAccount(server.url, uniqueEmail(`system-${run}`));
      const asked = await client(server.url).post('/auth/request-password-reset', { email: account.email });
      assert.equal(asked.status, 202, asked.text);
      const [message] = await arrivals((to) => to === account.email, 1, 20_000);
      assert.ok(message, 'the reset mail arrives');
      const verdicts = await receiver(dns)(message.raw, { ip: RELAY_IP, sender: `accounts@${SYSTEM_DOMAIN}` });
      assert.deepEqual([verdicts.dkim, verdicts.dkimDomain, verdicts.spf, verdicts.dmarc], ['pass', SYSTEM_DOMAIN, 'pass', 'pass'], verdicts.detail);
    });
  });
}

/** One corpus message through one sending path, to `to`. */
async function sendThrough(project: TestProject, path: SendPath, message: CorpusMessage, from: string, to: string): Promise<void> {
  const api = project.api;
  const expectStatus = (res: { status: number; text: string }, status: number) => assert.equal(res.status, status, `${path} #${message.index}: ${res.text}`);
  const template = async (type: 'TRANSACTIONAL' | 'MARKETING') => {
    const res = await api.post('/templates', { name: `Corpus ${message.index}`, subject: message.subject, body: message.html, from, fromName: message.fromName, type });
    expectStatus(res, 201);
    return res.body.id as string;
  };
  const campaign = async (type: 'TRANSACTIONAL' | 'MARKETING') => {
    const res = await api.post('/campaigns', {
      name: `Corpus ${message.index}`,
      subject: message.subject,
      body: message.html,
      from,
      fromName: message.fromName,
      type,
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'equals', value: to }] }] },
    });
    expectStatus(res, 201);
    return res.body.data.id as string;
  };
  const recipient = message.toName ? { name: message.toName, email: to } : to;
  const extras = { ...(Object.keys(message.headers).length ? { headers: message.headers } : {}), ...(message.attachments.length ? { attachments: message.attachments } : {}) };
  switch (path) {
    case 'send':
      return expectStatus(
        await api.post('/v1/send', { to: recipient, from: { name: message.fromName, email: from }, subject: message.subject, body: message.html, ...extras }),
        200,
      );
    case 'template-send': {
      const type = message.index % 2 ? 'MARKETING' : 'TRANSACTIONAL';
      return expectStatus(await api.post('/v1/send', { to: recipient, template: await template(type), subscribed: true, ...extras }), 200);
    }
    case 'campaign-marketing':
    case 'campaign-transactional': {
      expectStatus(await api.post('/contacts', { email: to, subscribed: true }), 201);
      const id = await campaign(path === 'campaign-marketing' ? 'MARKETING' : 'TRANSACTIONAL');
      return expectStatus(await api.post(`/campaigns/${id}/send`, {}), 200);
    }
    case 'campaign-test':
      return expectStatus(await api.post(`/campaigns/${await campaign('MARKETING')}/test`, { email: to }), 200);
    case 'workflow': {
      const templateId = await template('TRANSACTIONAL');
      const flow = await buildWorkflow(api, { name: `Corpus ${message.index}`, eventName: `corpus-${message.index}` }, [{ type: 'SEND_EMAIL', config: { templateId } }]);
      await enable(api, flow.id);
      await track(project.publicApi, to, `corpus-${message.index}`);
    }
  }
}
