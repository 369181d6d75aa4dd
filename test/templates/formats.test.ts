import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

/** A two-column order note in MJML: paragraphs, a list, a table, three scripts, fallbacks and a loop. */
const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="22px">Здравствуйте, {{ data.firstName ?? "друг" }}!</mj-text>
        <mj-text>Your order {{ data.order }} left Rotterdam this morning; the carrier expects to reach {{ data.city }} within two working days.</mj-text>
      </mj-column>
      <mj-column>
        <mj-text><ul>{% assign items = data.items | split: "|" %}{% for item in items %}<li>{{ item }}</li>{% endfor %}</ul></mj-text>
        <mj-text>ご注文ありがとうございます。 شكرا لطلبك.</mj-text>
        <mj-table><tr><th>品目</th><th>Кол-во</th></tr><tr><td>{{ data.order }}</td><td>{{ data.parcels ?? 1 }}</td></tr></mj-table>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

const CONTACT_DATA = { firstName: 'Ксения', order: 'A-1042', city: 'Kyōto <east>', items: 'Espresso beans, 1 kg|手挽きミル' };

describe('template formats, history and checks (docs/templates.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  /** The message the relay received for `address`, waiting for it. */
  async function messageTo(address: string) {
    for (;;) {
      const found = sink.messages.find((m) => m.envelope.to.includes(address));
      if (found) return found;
      await sink.waitForMessages(sink.messages.length + 1, 30_000);
    }
  }

  async function setup() {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    return { project, from: `orders@${domain.domain}` };
  }

  test('MJML is rendered to the sent HTML on save; body is read-only; MJML and Liquid errors name their line', async () => {
    const { project, from } = await setup();
    const created = await project.api.post('/templates', { name: 'Order note', subject: 'Order {{ data.order }}', format: 'mjml', source: MJML, from, type: 'HEADLESS' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.format, 'mjml');
    assert.equal(created.body.source, MJML);
    assert.equal(created.body.editorState, null);
    assert.match(created.body.body, /^<!doctype html>/i);
    assert.match(created.body.body, /@media only screen and \(min-width:480px\)/, 'responsive columns');
    assert.ok(created.body.body.includes('{{ data.firstName ?? "друг" }}'), 'Liquid passes through MJML untouched');

    const bodyWrite = await project.api.patch(`/templates/${created.body.id}`, { body: '<p>hand-written</p>' });
    assert.equal(bodyWrite.status, 422, bodyWrite.text);
    assert.equal(bodyWrite.body.error.errors[0].field, 'body');

    const unknownTag = MJML.replace('<mj-text>ご注文', '<mj-bogus>x</mj-bogus>\n        <mj-text>ご注文');
    const mjmlError = await project.api.patch(`/templates/${created.body.id}`, { source: unknownTag });
    assert.equal(mjmlError.status, 400, mjmlError.text);
    assert.equal(mjmlError.body.error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.deepEqual([mjmlError.body.error.details.field, mjmlError.body.error.details.line], ['source', 10]);
    assert.match(mjmlError.body.error.message, /line 10/);
    assert.doesNotMatch(mjmlError.body.error.message, /\/work|\/home|\/app/, 'no server path');

    const liquidError = await project.api.post('/templates/preview', { subject: 's', format: 'mjml', source: MJML.replace('{% endfor %}', '') });
    assert.equal(liquidError.status, 400, liquidError.text);
    assert.equal(liquidError.body.error.details.field, 'source');
    assert.equal(liquidError.body.error.details.line, 9);

    const missing = await project.api.post('/templates', { name: 'x', subject: 's', format: 'mjml', from });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.body.error, 'source is required');

    // Leaving MJML for HTML keeps the rendered HTML as the source, which is then edited freely.
    const html = await project.api.patch(`/templates/${created.body.id}`, { format: 'html' });
    assert.equal(html.status, 200, html.text);
    assert.equal(html.body.body, created.body.body);
    assert.equal(html.body.source, created.body.body);

    // A campaign's own content is written the same way.
    const campaign = await project.api.post('/campaigns', { name: 'Own MJML', audienceType: 'ALL', subject: 'News', from, format: 'mjml', source: MJML });
    assert.equal(campaign.status, 201, campaign.text);
    assert.equal(campaign.body.data.format, 'mjml');
    assert.equal(campaign.body.data.source, MJML);
    assert.equal(campaign.body.data.body, created.body.body);
    const campaignBody = await project.api.post('/campaigns', { name: 'x', audienceType: 'ALL', subject: 'News', from, format: 'mjml', source: MJML, body: '<p>x</p>' });
    assert.equal(campaignBody.status, 422, campaignBody.text);
  });

  test('the API preview for a contact is byte for byte the HTML part delivery sends', async () => {
    const { project, from } = await setup();
    const template = await project.api.post('/templates', { name: 'Order note', subject: 'Заказ {{ data.order }}', format: 'mjml', source: MJML, from, type: 'HEADLESS' });
    assert.equal(template.status, 201, template.text);
    const email = `kseniya-${randomUUID().slice(0, 8)}@example.test`;
    const contact = await project.api.post('/contacts', { email, data: CONTACT_DATA });
    assert.equal(contact.status, 201, contact.text);

    const preview = await project.api.post(`/templates/${template.body.id}/preview`, { contactId: contact.body.id });
    assert.equal(preview.status, 200, preview.text);
    assert.match(preview.body.html, /Здравствуйте, Ксения!/);
    assert.match(preview.body.html, /Kyōto &lt;east&gt;/);
    assert.match(preview.body.html, /<li>手挽きミル<\/li>/);
    assert.match(preview.body.html, /<th>品目<\/th><th>Кол-во<\/th><\/tr><tr><td>A-1042<\/td><td>1<\/td>/);
    assert.deepEqual(preview.body.emptyPlaceholders, []);

    const sent = await project.api.post('/v1/send', { to: email, template: template.body.id });
    assert.equal(sent.status, 200, sent.text);
    const message = await messageTo(email);
    assert.equal(message.parsed.subject, 'Заказ A-1042');
    assert.equal((message.parsed.html as string).replace(/\r\n/g, '\n'), preview.body.html);
  });

  test('every content-changing save keeps a version, listed newest first with who; one is read and restored', async () => {
    const { project, from } = await setup();
    const v1 = await project.dashboard.post('/templates', { name: 'Note', subject: 'First subject', format: 'mjml', source: MJML, from });
    assert.equal(v1.status, 201, v1.text);
    const id = v1.body.id;
    assert.equal((await project.api.patch(`/templates/${id}`, { name: 'Renamed only' })).status, 200);
    const secondSource = MJML.replace('Здравствуйте', 'Добрый день');
    assert.equal((await project.api.patch(`/templates/${id}`, { subject: 'Second subject', source: secondSource })).status, 200);

    const list = await project.api.get(`/templates/${id}/versions`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((v: { version: number; subject: string }) => [v.version, v.subject]),
      [
        [2, 'Second subject'],
        [1, 'First subject'],
      ],
      'a rename keeps no version',
    );
    assert.equal(list.body.data[1].createdBy.email, project.owner.email, 'the signed-in author');
    assert.equal(list.body.data[0].createdBy, null, 'an API key');

    const first = await project.api.get(`/templates/${id}/versions/1`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.source, MJML);
    assert.equal(first.body.body, v1.body.body);

    const restored = await project.api.post(`/templates/${id}/versions/1/restore`);
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.subject, 'First subject');
    assert.equal(restored.body.source, MJML);
    assert.equal(restored.body.name, 'Renamed only');
    const after = await project.api.get(`/templates/${id}/versions`);
    assert.deepEqual(
      after.body.data.map((v: { version: number }) => v.version),
      [3, 2, 1],
    );
    assert.equal((await project.api.get(`/templates/${id}/versions/9`)).status, 404);

    // A draft campaign made from the template holds its deletion back, and the refusal names it.
    const campaign = await project.api.post('/campaigns', { name: 'Spring sale', audienceType: 'ALL', templateId: id });
    assert.equal(campaign.status, 201, campaign.text);
    const refused = await project.api.delete(`/templates/${id}`);
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.body.error.message, /campaign "Spring sale"/);
    assert.equal((await project.api.delete(`/campaigns/${campaign.body.data.id}`)).status, 204);
    assert.equal((await project.api.delete(`/templates/${id}`)).status, 204);
  });

  test('starters render without MJML warnings; preview lists empty placeholders and checks; a test send renders the chosen contact', async () => {
    const { project, from } = await setup();
    const starters = await project.api.get('/templates/starters');
    assert.equal(starters.status, 200, starters.text);
    assert.deepEqual(
      starters.body.data.map((s: { id: string }) => s.id),
      ['welcome', 'password-reset', 'receipt', 'newsletter', 'announcement', 're-engagement'],
    );
    for (const starter of starters.body.data) {
      const preview = await project.api.post('/templates/preview', { subject: starter.subject, format: 'mjml', source: starter.source, type: starter.type });
      assert.equal(preview.status, 200, `${starter.id}: ${preview.text}`);
      assert.deepEqual(preview.body.checks, [], `${starter.id} passes every check`);
      assert.deepEqual(preview.body.emptyPlaceholders, [], `${starter.id} reads well without a contact`);
    }

    const body = [
      '<h1>Hello {{ data.firstName }}</h1>',
      '<p>Your plan: {{ data.plan }}. City: {{ data.city ?? "unknown" }}.</p>',
      '<p><img src="https://example.com/hero.png"></p>',
      '<p><a href="javascript:alert(1)">Open the offer</a> or <a href="https://example.com">visit us</a>.</p>',
    ].join('\n');
    const contact = await project.api.post('/contacts', { email: `lena-${randomUUID().slice(0, 8)}@example.test`, data: { firstName: 'Лена' } });
    const preview = await project.api.post('/templates/preview', { subject: 'Hi {{ data.firstName }}', body, contactId: contact.body.id });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body.emptyPlaceholders, ['data.plan']);
    assert.deepEqual(
      preview.body.checks.map((c: { code: string; where: string }) => [c.code, c.where]),
      [
        ['IMAGE_WITHOUT_ALT', 'image 1 (https://example.com/hero.png)'],
        ['LINK_NOT_HTTP', 'link 1 ("Open the offer")'],
        ['NO_UNSUBSCRIBE_LINK', 'body'],
      ],
    );

    const template = await project.api.post('/templates', {
      name: 'Hi',
      subject: 'Hi {{ data.firstName ?? "you" }}',
      body: '<p>Hello {{ data.firstName ?? "you" }}</p>',
      from,
      type: 'TRANSACTIONAL',
    });
    const to = `tester-${randomUUID().slice(0, 8)}@example.test`;
    const sent = await project.api.post(`/templates/${template.body.id}/test`, { email: to, contactId: contact.body.id });
    assert.equal(sent.status, 200, sent.text);
    const message = await messageTo(to);
    assert.equal(message.parsed.subject, '[Test] Hi Лена');
  });
});
