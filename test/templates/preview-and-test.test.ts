import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

/** A realistic order summary: paragraphs, a table, several scripts, a long line, a loop and fallbacks. */
const SUBJECT = 'Заказ {{ data.order }} — {{ first_name ?? "friend" }}, ご注文ありがとうございます';
const BODY = [
  '<h1>Thank you, {{ first_name ?? "friend" }}!</h1>',
  '<p>Your order <strong>{{ data.order }}</strong> left our warehouse in Rotterdam this morning. The carrier expects to reach {{ city }} within two working days; we will write again when it is out for delivery, and you can always follow it from your account page without signing in again.</p>',
  '<p>Ваш заказ уже в пути. ご注文の商品は発送されました。 طلبك في الطريق إليك.</p>',
  '<table>',
  '  <thead><tr><th>#</th><th>Item</th></tr></thead>',
  '  <tbody>',
  '  {% assign list = items | split: "|" %}{% for item in list %}<tr><td>{{ forloop.index }}</td><td>{{ item }}</td></tr>{% endfor %}',
  '  </tbody>',
  '</table>',
  '<p>Questions? Reply to this message.</p>',
].join('\n');

const CONTACT_DATA = {
  first_name: 'Ксения',
  city: 'Kyōto <east>',
  order: 'A-1042',
  items: 'Espresso beans, 1 kg|手挽きミル',
};

describe('template preview and test send (the API reference (Templates); docs/decisions/templates.md)', () => {
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

  async function setup(type = 'TRANSACTIONAL') {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const template = await project.api.post('/templates', { name: 'Order shipped', subject: SUBJECT, body: BODY, from: `orders@${domain.domain}`, fromName: 'Shop', type });
    assert.equal(template.status, 201, template.text);
    const contact = await project.api.post('/contacts', { email: `kseniya-${randomUUID().slice(0, 8)}@example.test`, data: CONTACT_DATA });
    assert.equal(contact.status, 201, contact.text);
    return { project, template: template.body, contact: contact.body as { id: string; email: string } };
  }

  async function emailStatus(project: TestProject, id: string, wanted: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await project.api.get(`/emails/${id}`);
      assert.equal(res.status, 200, res.text);
      if (res.body.status === wanted || Date.now() > deadline) return res.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test("a draft renders with a contact's data: values escaped in the body, not in the subject, loops and fallbacks", async () => {
    const { project, contact } = await setup();
    const res = await project.dashboard.post('/templates/preview', { subject: SUBJECT, body: BODY, contactId: contact.id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['checks', 'contact', 'emptyPlaceholders', 'html', 'subject', 'text']);
    assert.equal(res.body.subject, 'Заказ A-1042 — Ксения, ご注文ありがとうございます');
    assert.deepEqual(res.body.contact, { id: contact.id, email: contact.email });
    const html: string = res.body.html;
    assert.match(html, /<h1>Thank you, Ксения!<\/h1>/);
    assert.match(html, /reach Kyōto &lt;east&gt; within/);
    assert.match(html, /<tr><td>1<\/td><td>Espresso beans, 1 kg<\/td><\/tr><tr><td>2<\/td><td>手挽きミル<\/td><\/tr>/);
    assert.match(html, /طلبك في الطريق إليك/);
    assert.match(res.body.text, /THANK YOU, КСЕНИЯ!/);
    assert.match(res.body.text, /手挽きミル/);
    assert.match(res.body.text, /reach Kyōto <east> within/, 'the text part is unescaped text');
    assert.ok(!/<\/?(p|td|h1|table)\b/.test(res.body.text), 'the text part has no markup');

    // Without a contact: unknown variables render empty, fallbacks apply.
    const anonymous = await project.api.post('/templates/preview', { subject: SUBJECT, body: BODY });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.body.subject, 'Заказ  — friend, ご注文ありがとうございます');
    assert.match(anonymous.body.html, /<h1>Thank you, friend!<\/h1>/);
    assert.equal(anonymous.body.contact, null);
  });

  test('the links of a preview are inert, never signed subscription links', async () => {
    const { project, contact } = await setup();
    const body = '<p>Not for you?</p><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a> · <a href="{{ manageUrl }}">Preferences</a></p>';
    const res = await project.api.post('/templates/preview', { subject: 'Hi', body, contactId: contact.id });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.html, '<p>Not for you?</p><p><a href="#unsubscribe">Unsubscribe</a> · <a href="#manage">Preferences</a></p>');
  });

  test('a syntax error is a 400 TEMPLATE_SYNTAX_ERROR naming the field, line and column', async () => {
    const { project, template, contact } = await setup();
    const broken = BODY.replace('{% endfor %}', '');
    const res = await project.api.post('/templates/preview', { subject: SUBJECT, body: broken, contactId: contact.id });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.deepEqual(res.body.error.details, { field: 'body', line: 7, column: 41 });
    assert.match(res.body.error.message, /line 7, column 41/);

    const filter = await project.api.post(`/templates/${template.id}/preview`, { body: 'Line one\nLine two {{ first_name | shout }}' });
    assert.equal(filter.status, 400, filter.text);
    assert.deepEqual(filter.body.error.details, { field: 'body', line: 2, column: 10 });

    const subject = await project.api.post('/templates/preview', { subject: 'Hi {{ name ', body: '<p>ok</p>' });
    assert.equal(subject.status, 400, subject.text);
    assert.equal(subject.body.error.details.field, 'subject');
    assert.equal(subject.body.error.details.line, 1);

    // Both broken: the body's error, the one an editor marks at its line, is reported.
    const both = await project.api.post('/templates/preview', { subject: '{{ x ', body: 'a\n{% if %}' });
    assert.equal(both.body.error.details.field, 'body');
  });

  test('a saved template previews as saved, or with the draft subject or body given; other projects are 404', async () => {
    const { project, template, contact } = await setup();
    const saved = await project.api.post(`/templates/${template.id}/preview`, { contactId: contact.id });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.subject, 'Заказ A-1042 — Ксения, ご注文ありがとうございます');
    const draft = await project.api.post(`/templates/${template.id}/preview`, { contactId: contact.id, body: '<p>{{ items | split: "|" | size }} items for {{ city }}</p>' });
    assert.equal(draft.status, 200, draft.text);
    assert.equal(draft.body.html, '<p>2 items for Kyōto &lt;east&gt;</p>');
    assert.equal(draft.body.subject, saved.body.subject);

    const other = await setup();
    assert.equal((await other.project.api.post(`/templates/${template.id}/preview`, {})).status, 404);
    const foreignContact = await other.project.api.post('/templates/preview', { subject: 'x', body: 'y', contactId: contact.id });
    assert.equal(foreignContact.status, 404, foreignContact.text);
    assert.equal(foreignContact.body.error.code, 'NOT_FOUND');
    const bad = await project.api.post('/templates/preview', { subject: 'x', body: 'y', contactId: 'nope' });
    assert.equal(bad.status, 422);
    assert.equal((await project.api.post('/templates/preview', { body: 'y' })).status, 422);
  });

  test('a test send goes through delivery as previewed, [Test] in the subject; it belongs to no contact', async () => {
    const { project, template, contact } = await setup();
    const preview = await project.api.post(`/templates/${template.id}/preview`, { contactId: contact.id });
    const res = await project.api.post(`/templates/${template.id}/test`, { email: contact.email.toUpperCase() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    assert.equal(res.body.data.to, contact.email);
    assert.equal(res.body.message, `Test email sent to ${contact.email}.`);
    const record = await emailStatus(project, res.body.data.emailId, 'DELIVERED');
    assert.equal(record.status, 'DELIVERED', JSON.stringify(record));
    assert.equal(record.subject, `[Test] ${preview.body.subject}`);
    assert.equal(record.sourceType, 'TRANSACTIONAL');
    assert.equal(record.templateId, template.id);
    assert.equal(record.contactId, null);

    const [message] = (await sink.waitForMessages(1)).filter((m) => m.envelope.to.includes(contact.email));
    assert.ok(message, 'the relay received the test');
    assert.equal(message.parsed.subject, `[Test] ${preview.body.subject}`);
    // The same renderer: the delivered HTML is the preview's (a TRANSACTIONAL body without links is sent as rendered).
    assert.equal((message.parsed.html as string).replace(/\r\n/g, '\n'), preview.body.html);
    assert.match(message.parsed.text ?? '', /手挽きミル/);
  });

  test('without an address a signed-in user gets the test; a key must name one', async () => {
    const { project, template } = await setup('MARKETING');
    const mine = await project.dashboard.post(`/templates/${template.id}/test`, {});
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.body.data.to, project.owner.email);
    assert.equal((await emailStatus(project, mine.body.data.emailId, 'DELIVERED')).status, 'DELIVERED');

    const keyed = await project.api.post(`/templates/${template.id}/test`, {});
    assert.equal(keyed.status, 400, keyed.text);
    assert.equal(keyed.body.error.code, 'BAD_REQUEST');
    assert.equal(keyed.body.error.details.field, 'email');
    assert.equal((await project.api.post(`/templates/${template.id}/test`, { email: 'not an address' })).status, 422);
    assert.equal((await project.api.post(`/templates/${randomUUID()}/test`, { email: 'a@example.test' })).status, 404);
  });
});
