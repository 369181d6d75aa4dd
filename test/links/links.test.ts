import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type LinkContext, type OutgoingContent, recipientLinks, trackContent } from '../../src/links/outgoing.ts';
import { signLinkToken } from '../../src/links/tokens.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const PUBLIC_URL = 'https://mail.example.test';
const HTML = '<html><body><p>News</p><a href="https://shop.test/sale?a=1&amp;b=2">Sale</a><a href="mailto:x@y.test">Mail</a><a href="https://blog.test/">Blog</a></body></html>';

describe('tracking and subscription links', () => {
  let server: TestServer;
  let web: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer({ PUBLIC_URL });
    web = client(server.url);
  });
  after(() => server.close());

  const secret = () => server.deps.config.sessionSecret;
  /** A link under PUBLIC_URL, as a path on the test server. */
  const path = (url: string) => {
    assert.ok(url.startsWith(`${PUBLIC_URL}/`), url);
    return url.slice(PUBLIC_URL.length);
  };

  /**
   * The delivery worker's preparation of a message: tracking (trackContent) and its click URLs
   * stored on the record, which the hand-off statement does for a whole chunk.
   */
  async function prepareOutgoing(context: LinkContext, content: OutgoingContent): Promise<OutgoingContent> {
    const { urls, ...outgoing } = trackContent(context, content);
    if (urls) await server.deps.db.query('UPDATE emails SET link_urls = $3::jsonb WHERE project_id = $1 AND id = $2', [urls.projectId, urls.emailId, JSON.stringify(urls.urls)]);
    return outgoing;
  }

  /** A sent MARKETING email record with its HTML prepared as the delivery worker does, for a new contact. */
  async function sentEmail(project: TestProject, options: { status?: string; subscribed?: boolean } = {}) {
    const contact = await project.api.post('/contacts', { email: uniqueEmail('links'), subscribed: options.subscribed ?? true });
    assert.equal(contact.status, 201, contact.text);
    const [row] = await server.deps.db.query<{ id: string }>(
      `INSERT INTO emails (project_id, contact_id, to_address, from_address, subject, status, content_type, campaign_id, sent_at)
       VALUES ($1, $2, $3, 'news@example.test', 'News', $4, 'MARKETING', $5, now()) RETURNING id`,
      [project.id, contact.body.id, contact.body.email, options.status ?? 'SENT', randomUUID()],
    );
    const context = { config: server.deps.config, projectId: project.id, emailId: row!.id, contactId: contact.body.id as string, contentType: 'MARKETING' as const };
    const prepared = await prepareOutgoing(context, { html: HTML, headers: {} });
    const clicks = [...prepared.html.matchAll(/href="(https:\/\/mail\.example\.test\/t\/c\/[^"]+)"/g)].map((match) => path(match[1]!));
    const pixel = path(prepared.html.match(/<img src="([^"]+)"/)![1]!);
    return { emailId: row!.id, contactId: contact.body.id as string, prepared, clicks, pixel, links: recipientLinks(context) };
  }

  async function record(projectId: string, emailId: string) {
    const [row] = await server.deps.db.query<any>('SELECT status, opens, clicks, opened_at, clicked_at FROM emails WHERE project_id = $1 AND id = $2', [projectId, emailId]);
    return row;
  }
  const events = async (project: TestProject, name: string) => (await project.api.get(`/events?name=${name}`)).body.data.reverse();
  const subscribed = async (project: TestProject, contactId: string) => (await project.api.get(`/contacts/${contactId}`)).body.subscribed;

  test('prepareOutgoing: pixel, rewritten links and List-Unsubscribe for MARKETING; HEADLESS untouched', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    assert.equal(email.clicks.length, 2, 'two http links; mailto untouched');
    assert.ok(email.prepared.html.includes('href="mailto:x@y.test"'));
    assert.deepEqual(email.prepared.headers, { 'List-Unsubscribe': `<${email.links.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    const context = { config: server.deps.config, projectId: project.id, emailId: email.emailId, contactId: email.contactId };
    const headless = { html: HTML, headers: { 'X-Custom': '1' } };
    assert.deepEqual(await prepareOutgoing({ ...context, contentType: 'HEADLESS' }, headless), headless);
    const transactional = await prepareOutgoing({ ...context, contentType: 'TRANSACTIONAL' }, headless);
    assert.deepEqual(transactional.headers, { 'X-Custom': '1' }, 'no List-Unsubscribe on transactional mail');
    // docs/decisions/sending.md defaults: clicks tracked on all mail, opens on MARKETING mail only.
    assert.ok(transactional.html.includes('/t/c/'));
    assert.ok(!transactional.html.includes('/t/o/'));
    const everything = await prepareOutgoing({ ...context, contentType: 'TRANSACTIONAL', tracking: { opens: 'all', clicks: 'all' } }, headless);
    assert.ok(everything.html.includes('/t/o/'));
  });

  test('the open pixel is a 1×1 GIF that counts every open and records email.opened with firstOpen', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    const first = await web.get(email.pixel);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'image/gif');
    assert.match(first.headers.get('cache-control')!, /no-store/);
    let row = await record(project.id, email.emailId);
    assert.equal(row.status, 'OPENED');
    assert.equal(row.opens, 1);
    assert.ok(row.opened_at);
    const openedAt = new Date(row.opened_at).toISOString();

    assert.equal((await web.get(email.pixel)).status, 200);
    assert.equal((await web.request('HEAD', email.pixel)).status, 200);
    row = await record(project.id, email.emailId);
    assert.equal(row.opens, 2, 'a HEAD is not an open');
    assert.equal(new Date(row.opened_at).toISOString(), openedAt, 'opened_at is the first open');

    const opened = await events(project, 'email.opened');
    assert.deepEqual(
      opened.map((event: any) => event.data.firstOpen),
      [true, false],
    );
    for (const event of opened) {
      assert.equal(event.contactId, email.contactId);
      assert.equal(event.emailId, email.emailId);
      assert.equal(event.data.emailId, email.emailId);
      assert.ok(event.data.campaignId, 'campaignId where it applies');
    }
  });

  test('an open keeps a later status; a bad pixel token is still a GIF and records nothing', async () => {
    const project = await createProject(server.url);
    const bounced = await sentEmail(project, { status: 'BOUNCED' });
    await web.get(bounced.pixel);
    assert.equal((await record(project.id, bounced.emailId)).status, 'BOUNCED');
    assert.equal((await record(project.id, bounced.emailId)).opens, 1);

    const email = await sentEmail(project);
    const token = email.pixel.slice('/t/o/'.length);
    for (const bad of [
      `/t/o/${token.slice(0, -2)}`,
      `/t/o/${token}x`,
      '/t/o/forged',
      `/t/o/${signLinkToken(secret(), { purpose: 'click', projectId: project.id, emailId: email.emailId, index: 0 })}`,
    ]) {
      const res = await web.get(bad);
      assert.equal(res.status, 200, bad);
      assert.equal(res.headers.get('content-type'), 'image/gif');
    }
    assert.equal((await record(project.id, email.emailId)).opens, 0);
    assert.equal((await record(project.id, email.emailId)).status, 'SENT');
  });

  test('a click redirects 302 to the original URL and records email.clicked; other targets are 404', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    const sale = await web.get(email.clicks[0]!);
    assert.equal(sale.status, 302);
    assert.equal(sale.headers.get('location'), 'https://shop.test/sale?a=1&b=2');
    const blog = await web.get(email.clicks[1]!);
    assert.equal(blog.headers.get('location'), 'https://blog.test/');
    const head = await web.request('HEAD', email.clicks[1]!);
    assert.equal(head.status, 302, 'HEAD resolves without counting');

    const row = await record(project.id, email.emailId);
    assert.equal(row.status, 'CLICKED');
    assert.equal(row.clicks, 2);
    assert.ok(row.clicked_at);
    const clicked = await events(project, 'email.clicked');
    assert.deepEqual(
      clicked.map((event: any) => event.data.url),
      ['https://shop.test/sale?a=1&b=2', 'https://blog.test/'],
    );
    assert.equal(clicked[0].emailId, email.emailId);
    assert.equal(clicked[0].data.emailId, email.emailId);

    // Validly signed, but the message has no URL at index 2: not an open redirect.
    const beyond = signLinkToken(secret(), { purpose: 'click', projectId: project.id, emailId: email.emailId, index: 2 });
    assert.equal((await web.get(`/t/c/${beyond}`)).status, 404);
    // A message without links, and a record that does not exist.
    const other = signLinkToken(secret(), { purpose: 'click', projectId: project.id, emailId: randomUUID(), index: 0 });
    assert.equal((await web.get(`/t/c/${other}`)).status, 404);
    const token = email.clicks[0]!.slice('/t/c/'.length);
    for (const bad of [token.slice(0, -1), `${token}A`, `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`, 'forged', email.pixel.slice('/t/o/'.length)]) {
      assert.equal((await web.get(`/t/c/${bad}`)).status, 404, bad);
    }
    assert.equal((await record(project.id, email.emailId)).clicks, 2, 'nothing counted for refused links');
  });

  test('one-click POST unsubscribes at once and emits contact.unsubscribed once; the GET page changes nothing', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    const unsubscribe = path(email.links.unsubscribeUrl!);

    const page = await web.get(unsubscribe);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.text, /<form method="post" action="\.\.\/u\/[A-Za-z0-9_-]+">/);
    assert.equal(await subscribed(project, email.contactId), true, 'GET does not unsubscribe');

    const oneClick = { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const res = await web.post(unsubscribe, undefined, oneClick);
    assert.equal(res.status, 200, res.text);
    assert.equal(await subscribed(project, email.contactId), false);
    assert.equal((await web.post(unsubscribe, undefined, oneClick)).status, 200, 'a second POST is fine');
    const unsubscribed = await events(project, 'contact.unsubscribed');
    assert.equal(unsubscribed.length, 1, 'no event when nothing changed');
    assert.equal(unsubscribed[0].contactId, email.contactId);
    assert.equal(unsubscribed[0].emailId, email.emailId);
    assert.equal(unsubscribed[0].data.emailId, email.emailId);

    // RFC 8058 allows multipart/form-data too.
    const other = await sentEmail(project);
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    assert.equal((await web.post(path(other.links.unsubscribeUrl!), undefined, { rawBody: form })).status, 200);
    assert.equal(await subscribed(project, other.contactId), false);
  });

  test('subscribe and manage pages show the state; their buttons resubscribe and unsubscribe', async () => {
    const project = await createProject(server.url, { name: 'Acme <News>' });
    const email = await sentEmail(project, { subscribed: false });
    const manage = path(email.links.manageUrl!);
    const page = await web.get(manage);
    assert.equal(page.status, 200);
    assert.ok(page.text.includes('Acme &lt;News&gt;'), 'escaped');
    assert.ok(page.text.includes('<strong>unsubscribed</strong>'));
    const actions = [...page.text.matchAll(/action="([^"]+)"/g)].map((match) => new URL(match[1]!, `${server.url}${manage}`).pathname);
    assert.equal(actions.length, 2);
    const [unsubscribeAction, subscribeAction] = actions;
    assert.match(unsubscribeAction!, /^\/u\//);
    assert.match(subscribeAction!, /^\/s\//);

    const subscribe = path(email.links.subscribeUrl!);
    assert.equal((await web.get(subscribe)).status, 200);
    assert.equal(await subscribed(project, email.contactId), false, 'GET /s changes nothing');
    const res = await web.post(subscribeAction!, undefined, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(res.status, 200);
    assert.equal(await subscribed(project, email.contactId), true);
    assert.ok((await web.get(manage)).text.includes('<strong>subscribed</strong>'));
    await web.post(subscribe);
    const subscribedEvents = await events(project, 'contact.subscribed');
    assert.equal(subscribedEvents.length, 1, 'the second subscribe changed nothing');
    assert.equal(subscribedEvents[0].data.emailId, email.emailId);

    assert.equal((await web.post(unsubscribeAction!)).status, 200);
    assert.equal(await subscribed(project, email.contactId), false);
  });

  test('unsubscribing a snoozed contact makes it permanent without an event', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    const until = new Date(Date.now() + 86_400_000).toISOString();
    assert.equal((await project.api.patch(`/contacts/${email.contactId}`, { snoozedUntil: until })).status, 200);
    const before = (await events(project, 'contact.unsubscribed')).length;
    await web.post(path(email.links.unsubscribeUrl!));
    const contact = (await project.api.get(`/contacts/${email.contactId}`)).body;
    assert.equal(contact.subscribed, false);
    assert.equal(contact.snoozedUntil, null);
    assert.equal((await events(project, 'contact.unsubscribed')).length, before);
  });

  test('forged, altered, wrong-purpose and dangling tokens are 404 on every page, GET and POST', async () => {
    const project = await createProject(server.url);
    const email = await sentEmail(project);
    const token = (url: string) => path(url).slice(3);
    const u = token(email.links.unsubscribeUrl!);
    const s = token(email.links.subscribeUrl!);
    const m = token(email.links.manageUrl!);
    const altered = (t: string) => `${t.slice(0, 5)}${t[5] === 'x' ? 'y' : 'x'}${t.slice(6)}`;
    const gone = signLinkToken(secret(), { purpose: 'unsubscribe', projectId: project.id, contactId: randomUUID() });
    const cases: Array<[string, string]> = [
      ['u', altered(u)],
      ['u', u.slice(0, -3)],
      ['u', 'forged'],
      ['u', s],
      ['u', gone],
      ['s', altered(s)],
      ['s', u],
      ['s', m],
      ['m', altered(m)],
      ['m', u],
      ['m', ''],
    ];
    for (const [page, bad] of cases) {
      const get = await web.get(`/${page}/${bad}`);
      assert.equal(get.status, 404, `GET /${page}/${bad}`);
      if (page !== 'm')
        assert.equal(
          (await web.post(`/${page}/${bad}`, undefined, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status,
          404,
        );
    }
    assert.equal(await subscribed(project, email.contactId), true, 'nothing changed');
    // A token of another project's secret is forged too.
    const foreign = signLinkToken('x'.repeat(64), { purpose: 'unsubscribe', projectId: project.id, contactId: email.contactId });
    assert.equal((await web.post(`/u/${foreign}`)).status, 404);
    assert.equal(await subscribed(project, email.contactId), true);
  });
});
