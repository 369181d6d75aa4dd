import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, seedContacts, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, enable, eventually, track } from '../kit/workflows.ts';

// docs/streams.md, "Headers receivers use": what the SMTP sink receives, parsed by mailparser.

const CHINESE = '您好！感谢您注册我们的服务。请点击下面的链接确认您的电子邮件地址，链接在四十八小时内有效。';
/**
 * One line of 58 UTF-8 bytes (19 Chinese characters and a "!"): nodemailer's base64 of it was one
 * line of 80 characters (the last bytes appended to a full line of 76 without a break).
 */
const ONE_LINE = '感谢您注册我们的服务请确认您的电子邮件地址'.slice(0, 19) + '!';
const HTML = [
  '<h1>Здравствуйте, Ада</h1>',
  `<p>${CHINESE}</p>`,
  '<ul><li>第一项：账户设置</li><li>第二项：通知偏好</li><li>Третий пункт: безопасность</li></ul>',
  '<p>مرحبا بكم في خدمتنا. نتمنى لكم يوما سعيدا.</p>',
].join('\n');

/** Every body line of every base64 part of a raw message, with the part's Content-Type. */
function base64Lines(raw: Buffer): Array<{ type: string; line: string }> {
  const text = raw.toString('binary');
  const lines: Array<{ type: string; line: string }> = [];
  // Parts start after a blank line following headers that name base64; they end at a boundary line.
  const parts = text.split(/\r\n--[^\r\n]+\r\n/);
  for (const part of parts) {
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const head = part.slice(0, split);
    if (!/^content-transfer-encoding:\s*base64/im.test(head)) continue;
    const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1] ?? '?';
    for (const line of part.slice(split + 4).split('\r\n')) if (line && !line.startsWith('--')) lines.push({ type, line });
  }
  return lines;
}

/** A header field's unfolded value as it arrived (the last instance), or undefined. */
function headerText(message: SinkMessage, name: string): string | undefined {
  const head = message.raw
    .toString('utf8')
    .split('\r\n\r\n', 1)[0]!
    .replace(/\r\n[ \t]+/g, ' ');
  const found = head.split('\r\n').filter((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return found
    .at(-1)
    ?.slice(name.length + 1)
    .trim();
}
const header = headerText;

describe('headers receivers use: Feedback-ID, Precedence, Auto-Submitted, base64 lines (docs/streams.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  const arrived = (to: string) => eventually(`the message to ${to}`, async () => sink.messages.find((m) => m.envelope.to.includes(to)));

  test('/v1/send: Feedback-ID of the transactional stream, project and domain; no Precedence or Auto-Submitted; base64 lines of at most 76', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const to = 'ada.lovelace@recipients.example.test';
    assert.equal(Buffer.byteLength(ONE_LINE), 58);
    const res = await project.api.post('/v1/send', {
      to,
      from: `hello@${domain.domain}`,
      subject: '欢迎 — Добро пожаловать',
      body: `<p>${ONE_LINE}</p>`,
      attachments: [{ filename: '说明.txt', content: Buffer.from(`${CHINESE}\n${CHINESE}`).toString('base64'), contentType: 'text/plain' }],
    });
    assert.equal(res.status, 200, res.text);
    const emailId = res.body.data.emails[0].email;
    const record = await waitForStatus(project.api, emailId, ['DELIVERED']);
    assert.equal(record.stream, 'transactional');
    const message = await arrived(to);
    assert.equal(headerText(message, 'Feedback-ID'), `transactional:transactional:${project.id}:${domain.domain}`);
    assert.equal(header(message, 'precedence'), undefined);
    assert.equal(header(message, 'auto-submitted'), undefined);
    const lines = base64Lines(message.raw);
    assert.ok(
      lines.some((l) => l.type === 'text/plain'),
      'the Chinese text part is base64',
    );
    const long = lines.filter((l) => l.line.length > 76);
    assert.deepEqual(long, [], 'every base64 line is at most 76 characters (RFC 2045 §6.8)');
    assert.equal(message.parsed.text?.trim(), ONE_LINE);
    assert.equal(message.parsed.attachments[0]?.content.toString(), `${CHINESE}\n${CHINESE}`);
    // The activity feed names the stream of each email.* event, and of no other.
    const contactId = res.body.data.emails[0].contact.id;
    const feed = await eventually('the email.* events', async () => {
      const page = await project.api.get(`/activity?contactId=${contactId}`);
      return page.body.data.some((item: { type: string }) => item.type === 'email.delivered') && page.body.data;
    });
    for (const item of feed) assert.equal(item.stream, item.type.startsWith('email.') ? 'transactional' : undefined, item.type);
  });

  test('a header the sender set is kept as given', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const to = 'grace.hopper@recipients.example.test';
    const res = await project.api.post('/v1/send', {
      to,
      from: `hello@${domain.domain}`,
      subject: 'Your receipt',
      body: HTML,
      headers: { 'Feedback-ID': 'receipts:shop:acme', 'Auto-Submitted': 'auto-generated' },
    });
    assert.equal(res.status, 200, res.text);
    const message = await arrived(to);
    assert.equal(headerText(message, 'Feedback-ID'), 'receipts:shop:acme');
    assert.equal(headerText(message, 'Auto-Submitted'), 'auto-generated');
    assert.equal(message.raw.toString().match(/^Feedback-ID:/gim)?.length, 1);
    assert.match(message.parsed.html || '', /مرحبا بكم في خدمتنا/);
    assert.deepEqual(
      base64Lines(message.raw).filter((l) => l.line.length > 76),
      [],
    );
  });

  test('a campaign: marketing stream, Feedback-ID naming the campaign, Precedence: bulk and one-click List-Unsubscribe', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const contacts = [
      { email: 'campaign-zh@recipients.example.test', subscribed: true, name: '李雷' },
      { email: 'campaign-ru@recipients.example.test', subscribed: true, name: 'Наташа' },
    ];
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(
      project.api,
      campaignBody(`news@${domain.domain}`, { subject: '春季新闻 {{name}}', body: `<p>{{name}}，${CHINESE}</p><ul><li>新品</li><li>折扣</li></ul>` }),
    );
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    for (const contact of contacts) {
      const message = await arrived(contact.email);
      assert.equal(headerText(message, 'Feedback-ID'), `${campaign.id}:marketing:${project.id}:${domain.domain}`);
      assert.equal(headerText(message, 'Precedence'), 'bulk');
      assert.equal(header(message, 'auto-submitted'), undefined);
      assert.match(headerText(message, 'List-Unsubscribe') ?? '', /https?:\/\//);
      assert.equal(headerText(message, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
      assert.deepEqual(
        base64Lines(message.raw).filter((l) => l.line.length > 76),
        [],
      );
    }
    const records = await project.api.get(`/campaigns/${campaign.id}/recipients`);
    assert.equal(records.status, 200, records.text);
  });

  test('workflow mail: transactional, Auto-Submitted: auto-generated', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const template = await project.api.post('/templates', {
      name: 'Welcome',
      subject: 'Welcome {{ name ?? "friend" }}',
      body: `<p>${CHINESE}</p><p>Plan: {{ event.plan }}</p>`,
      from: `hello@${domain.domain}`,
      type: 'TRANSACTIONAL',
    });
    assert.equal(template.status, 201, template.text);
    const flow = await buildWorkflow(project.api, { eventName: 'signed-up' }, [{ type: 'SEND_EMAIL', config: { templateId: template.body.id ?? template.body.data?.id } }]);
    await enable(project.api, flow.id);
    const to = 'workflow-user@recipients.example.test';
    await track(project.publicApi, to, 'signed-up', { plan: 'pro' });
    const message = await arrived(to);
    assert.equal(headerText(message, 'Auto-Submitted'), 'auto-generated');
    assert.equal(headerText(message, 'Feedback-ID'), `transactional:transactional:${project.id}:${domain.domain}`);
    assert.equal(header(message, 'precedence'), undefined);
  });
});
