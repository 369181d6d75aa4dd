import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

/** A newsletter with a table, three scripts, an image without alt, a link that is not http(s) and no unsubscribe link. */
const NEWSLETTER = `<h1>Новости мастерской, {{ data.firstName ?? "друзья" }}</h1>
<p>This autumn the workshop moved to the old print hall by the canal. The presses are back in order, the
windows face south, and on Saturdays the doors are open from ten until the light goes.</p>
<img src="https://cdn.example.test/hall.jpg" width="560">
<table>
  <tr><th>Kurs</th><th>Termin</th><th>Plätze</th></tr>
  <tr><td>活版印刷の基礎</td><td>12. Dezember</td><td>8</td></tr>
  <tr><td>Bookbinding for beginners</td><td>19 December</td><td>6</td></tr>
</table>
<ul><li>مرحبا بكم في الورشة</li><li>Tea and biscuits are on us.</li></ul>
<p><a href="javascript:alert(1)">Reserve a seat</a> or <a href="https://workshop.example.test/courses">see every course</a>.</p>`;

const FIXED = NEWSLETTER.replace('width="560"', 'width="560" alt="The print hall by the canal"')
  .replace('javascript:alert(1)', 'https://workshop.example.test/reserve')
  .concat('\n<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>');

const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Здравствуйте, {{ data.firstName ?? "друг" }}! The winter timetable is out.</mj-text>
        <mj-image src="https://cdn.example.test/press.jpg" />
        <mj-table><tr><td>月曜日</td><td>Letterpress</td></tr><tr><td>水曜日</td><td>Binding</td></tr></mj-table>
        <mj-button href="{{ unsubscribeUrl }}">Unsubscribe</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

const codes = (checks: Array<{ code: string }>) => checks.map((c) => c.code).sort();

describe('checks of a campaign before a test or a send (docs/campaigns.md)', () => {
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

  test('create and replace answer the checks, each saying where; they are advice: the campaign is saved and a test goes out', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    const created = await project.api.post('/campaigns', { name: 'Workshop news', subject: 'Новости', body: NEWSLETTER, from, audienceType: 'ALL' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.status, 'DRAFT');
    assert.equal(created.body.data.body, NEWSLETTER);
    assert.deepEqual(codes(created.body.checks), ['IMAGE_WITHOUT_ALT', 'LINK_NOT_HTTP', 'NO_UNSUBSCRIBE_LINK']);
    const byCode = Object.fromEntries(created.body.checks.map((c: { code: string }) => [c.code, c]));
    assert.equal(byCode.IMAGE_WITHOUT_ALT.where, 'image 1 (https://cdn.example.test/hall.jpg)');
    assert.equal(byCode.LINK_NOT_HTTP.where, 'link 1 ("Reserve a seat")');
    assert.match(byCode.LINK_NOT_HTTP.message, /javascript:alert\(1\)/);
    assert.equal(byCode.NO_UNSUBSCRIBE_LINK.where, 'body');

    const test = await project.api.post(`/campaigns/${created.body.data.id}/test`, { email: 'editor@recipients.example.test' });
    assert.equal(test.status, 200, test.text);

    const fixed = await project.api.put(`/campaigns/${created.body.data.id}`, { name: 'Workshop news', subject: 'Новости', body: FIXED, from, audienceType: 'ALL' });
    assert.equal(fixed.status, 200, fixed.text);
    assert.deepEqual(fixed.body.checks, []);

    // A transactional campaign needs no unsubscribe link.
    const transactional = await project.api.post('/campaigns', {
      name: 'Course change',
      type: 'TRANSACTIONAL',
      subject: 'Your course moved',
      body: NEWSLETTER,
      from,
      audienceType: 'ALL',
    });
    assert.equal(transactional.status, 201, transactional.text);
    assert.deepEqual(codes(transactional.body.checks), ['IMAGE_WITHOUT_ALT', 'LINK_NOT_HTTP']);
  });

  test('an image-only body has no text part; a body over 102 KB is clipped by Gmail', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    const imageOnly = await project.api.post('/campaigns', {
      name: 'Poster',
      type: 'TRANSACTIONAL',
      subject: 'Poster',
      body: '<table><tr><td><img src="https://cdn.example.test/poster.png" alt=""></td><td><img src="https://cdn.example.test/map.png" alt=" "></td></tr></table>',
      from,
      audienceType: 'ALL',
    });
    assert.equal(imageOnly.status, 201, imageOnly.text);
    assert.deepEqual(codes(imageOnly.body.checks), ['IMAGE_WITHOUT_ALT', 'IMAGE_WITHOUT_ALT', 'NO_TEXT_PART']);
    assert.deepEqual(
      imageOnly.body.checks.filter((c: { code: string }) => c.code === 'IMAGE_WITHOUT_ALT').map((c: { where: string }) => c.where),
      ['image 1 (https://cdn.example.test/poster.png)', 'image 2 (https://cdn.example.test/map.png)'],
    );

    const paragraph = `<p>${'Die Druckerei am Kanal öffnet samstags ihre Türen; 印刷所は土曜日に開いています. '.repeat(12)}</p>\n`;
    const long = `${paragraph.repeat(Math.ceil((110 * 1024) / Buffer.byteLength(paragraph)))}<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>`;
    const clipped = await project.api.post('/campaigns', { name: 'Long read', subject: 'Long read', body: long, from, audienceType: 'ALL' });
    assert.equal(clipped.status, 201, clipped.text);
    assert.deepEqual(codes(clipped.body.checks), ['HTML_CLIPPED']);
    assert.equal(clipped.body.checks[0].where, 'body');
    assert.match(clipped.body.checks[0].message, /1\d\d KB/);
  });

  test('POST /campaigns/{id}/preview renders the saved campaign for a contact, with the same checks; other projects are 404', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    const contact = await project.api.post('/contacts', { email: `anna-${randomUUID().slice(0, 8)}@recipients.example.test`, data: { firstName: 'Анна' } });
    assert.equal(contact.status, 201, contact.text);
    const created = await project.api.post('/campaigns', {
      name: 'Workshop news',
      subject: 'Новости для {{ data.firstName ?? "вас" }}',
      body: NEWSLETTER,
      from,
      audienceType: 'ALL',
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;

    const preview = await project.api.post(`/campaigns/${id}/preview`, { contactId: contact.body.id });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.body.subject, 'Новости для Анна');
    assert.match(preview.body.html, /Новости мастерской, Анна/);
    assert.match(preview.body.html, /<td>活版印刷の基礎<\/td>/);
    assert.match(preview.body.text, /مرحبا بكم في الورشة/);
    assert.deepEqual(preview.body.contact, { id: contact.body.id, email: contact.body.email });
    assert.deepEqual(preview.body.checks, created.body.checks);

    const anonymous = await project.api.post(`/campaigns/${id}/preview`, {});
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.match(anonymous.body.html, /Новости мастерской, друзья/);
    assert.equal(anonymous.body.contact, null);

    const unknownContact = await project.api.post(`/campaigns/${id}/preview`, { contactId: randomUUID() });
    assert.equal(unknownContact.status, 404, unknownContact.text);
    const other = await projectWithSender(server.url, dns, 'news');
    const foreign = await other.project.api.post(`/campaigns/${id}/preview`, {});
    assert.equal(foreign.status, 404, foreign.text);
    const foreignContact = await other.project.api.post('/contacts', { email: `other-${randomUUID().slice(0, 8)}@recipients.example.test` });
    const crossed = await project.api.post(`/campaigns/${id}/preview`, { contactId: foreignContact.body.id });
    assert.equal(crossed.status, 404, crossed.text);
  });

  test('an MJML campaign, from a template or its own, is checked as rendered: the image without alt, the unsubscribe link in the source', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    const template = await project.api.post('/templates', { name: 'Timetable', subject: 'Winter timetable', format: 'mjml', source: MJML, from, type: 'MARKETING' });
    assert.equal(template.status, 201, template.text);
    const fromTemplate = await project.api.post('/campaigns', { name: 'Winter', templateId: template.body.id, audienceType: 'ALL' });
    assert.equal(fromTemplate.status, 201, fromTemplate.text);
    assert.equal(fromTemplate.body.data.format, 'mjml');
    assert.deepEqual(codes(fromTemplate.body.checks), ['IMAGE_WITHOUT_ALT']);
    assert.match(fromTemplate.body.checks[0].where, /^image 1 \(https:\/\/cdn\.example\.test\/press\.jpg\)$/);

    const preview = await project.api.post(`/campaigns/${fromTemplate.body.data.id}/preview`, {});
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body.checks, fromTemplate.body.checks);
    assert.match(preview.body.html, /<td>水曜日<\/td>/);

    const own = await project.api.post('/campaigns', {
      name: 'Winter, own',
      subject: 'Winter timetable',
      format: 'mjml',
      source: MJML.replace('<mj-image src="https://cdn.example.test/press.jpg" />', '<mj-image src="https://cdn.example.test/press.jpg" alt="The press" />').replace(
        '<mj-button href="{{ unsubscribeUrl }}">Unsubscribe</mj-button>',
        '',
      ),
      from,
      audienceType: 'ALL',
    });
    assert.equal(own.status, 201, own.text);
    assert.deepEqual(codes(own.body.checks), ['NO_UNSUBSCRIBE_LINK']);
  });
});
