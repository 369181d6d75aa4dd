import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, makeContacts, seedContacts, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

describe('campaigns: create, read, replace, list, duplicate, delete (the API reference (Campaigns); docs/decisions/campaigns.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let project: TestProject;
  let from: string;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
    project = await createProject(server.url);
    from = `news@${(await verifiedDomain(project, dns)).domain}`;
    await seedContacts(project.api, makeContacts('crud', 10, 5)); // 8 subscribed, 2 not
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  test('POST /campaigns → 201 { success, data } in DRAFT with defaults and the audience counted', async () => {
    const res = await project.api.post('/campaigns', campaignBody(from, { description: 'for everyone' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.success, true);
    const campaign = res.body.data;
    assert.equal(campaign.status, 'DRAFT');
    assert.equal(campaign.type, 'MARKETING');
    assert.equal(campaign.audienceType, 'ALL');
    assert.equal(campaign.from, from);
    assert.equal(campaign.description, 'for everyone');
    assert.deepEqual(
      [campaign.fromName, campaign.replyTo, campaign.segmentId, campaign.audienceCondition, campaign.scheduledFor, campaign.sentAt],
      [null, null, null, null, null, null],
    );
    assert.equal(campaign.totalRecipients, 8, 'subscribed contacts only (MARKETING)');
    assert.deepEqual([campaign.sentCount, campaign.deliveredCount, campaign.openedCount, campaign.clickedCount, campaign.bouncedCount], [0, 0, 0, 0, 0]);
    assert.equal(campaign.projectId, project.id);

    const transactional = await createCampaign(project.api, campaignBody(from, { type: 'TRANSACTIONAL' }));
    assert.equal(transactional.totalRecipients, 10, 'TRANSACTIONAL ignores subscribed');
  });

  test('create: 422 on schema failures, 400 on a missing companion field, 400 on broken Liquid, 403 on an unverified sender, 401 without a key', async () => {
    const missing = await project.api.post('/campaigns', { name: 'x', audienceType: 'ALL' });
    assert.equal(missing.status, 422, missing.text);
    assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(missing.body.error.errors.map((e: { field: string }) => e.field).sort(), ['body', 'from', 'subject']);

    for (const [body, field] of [
      [campaignBody(from, { name: undefined }), 'name'],
      [campaignBody(from, { audienceType: 'EVERYONE' }), 'audienceType'],
      [campaignBody(from, { type: 'BULK' }), 'type'],
      [campaignBody('not-an-email'), 'from'],
      [campaignBody(from, { audienceType: 'SEGMENT', segmentId: 'nope' }), 'segmentId'],
    ] as const) {
      const res = await project.api.post('/campaigns', body);
      assert.equal(res.status, 422, `${field}: ${res.text}`);
      assert.ok(
        res.body.error.errors.some((e: { field: string }) => e.field === field),
        res.text,
      );
    }

    const noSegment = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'SEGMENT' }));
    assert.equal(noSegment.status, 400, noSegment.text);
    assert.match(noSegment.body.error.message, /segmentId/);
    const noCondition = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'FILTERED' }));
    assert.equal(noCondition.status, 400, noCondition.text);
    assert.match(noCondition.body.error.message, /audienceCondition/);

    const broken = await project.api.post('/campaigns', campaignBody(from, { body: '<p>{% if x %}unclosed</p>' }));
    assert.equal(broken.status, 400, broken.text);
    assert.equal(broken.body.error.code, 'TEMPLATE_SYNTAX_ERROR');

    const unverified = await project.api.post('/campaigns', campaignBody('news@not-verified.example.test'));
    assert.equal(unverified.status, 403, unverified.text);
    assert.equal(unverified.body.error.code, 'SENDER_DOMAIN_NOT_VERIFIED');

    const anonymous = await project.api.post('/campaigns', campaignBody(from), { key: '' });
    assert.equal(anonymous.status, 401);
    assert.equal((await project.publicApi.post('/campaigns', campaignBody(from))).status, 401);
  });

  test('templateId: subject, body and sender come from the template unless given; the template lists the campaign as usage', async () => {
    const template = await project.api.post('/templates', { name: 'T', subject: 'From the template', body: '<p>template body</p>', from, fromName: 'News', type: 'TRANSACTIONAL' });
    assert.equal(template.status, 201, template.text);
    const campaign = await createCampaign(project.api, { name: 'From T', audienceType: 'ALL', templateId: template.body.id, subject: 'Own subject' });
    assert.deepEqual(
      [campaign.subject, campaign.body, campaign.from, campaign.fromName, campaign.type, campaign.templateId],
      ['Own subject', '<p>template body</p>', from, 'News', 'TRANSACTIONAL', template.body.id],
    );
    const usage = await project.api.get(`/templates/${template.body.id}/usage`);
    assert.equal(usage.status, 200, usage.text);
    assert.deepEqual(usage.body.campaigns, [{ id: campaign.id, name: 'From T', status: 'DRAFT' }]);
    const unknown = await project.api.post('/campaigns', { name: 'x', audienceType: 'ALL', templateId: randomUUID() });
    assert.equal(unknown.status, 404, unknown.text);
  });

  test('GET /campaigns/{id}: the campaign; 404 when unknown or in another project; 422 for a non-UUID id', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from));
    const res = await project.api.get(`/campaigns/${campaign.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { success: true, data: campaign });
    assert.equal((await project.dashboard.get(`/campaigns/${campaign.id}`)).status, 200, 'a member session works too');
    assert.equal((await project.api.get(`/campaigns/${randomUUID()}`)).status, 404);
    const other = await createProject(server.url);
    assert.equal((await other.api.get(`/campaigns/${campaign.id}`)).status, 404);
    const bad = await project.api.get('/campaigns/not-a-uuid');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.errors[0].field, 'id');
  });

  test('PUT replaces a DRAFT or SCHEDULED campaign with the create body; any other state → 400', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from, { description: 'old' }));
    const replaced = await project.api.put(`/campaigns/${campaign.id}`, campaignBody(from, { name: 'Renamed', type: 'TRANSACTIONAL', replyTo: 'reply@example.test' }));
    assert.equal(replaced.status, 200, replaced.text);
    const data = replaced.body.data;
    assert.deepEqual([data.name, data.type, data.replyTo, data.description, data.totalRecipients], ['Renamed', 'TRANSACTIONAL', 'reply@example.test', null, 10]);
    assert.ok(data.updatedAt > campaign.updatedAt);
    const invalid = await project.api.put(`/campaigns/${campaign.id}`, { name: 'no content', audienceType: 'ALL' });
    assert.equal(invalid.status, 422);

    const later = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: later })).status, 200);
    const whileScheduled = await project.api.put(`/campaigns/${campaign.id}`, campaignBody(from, { name: 'Still editable' }));
    assert.equal(whileScheduled.status, 200, whileScheduled.text);
    assert.equal(whileScheduled.body.data.status, 'SCHEDULED');
    assert.equal(whileScheduled.body.data.scheduledFor, later);

    assert.equal((await project.api.post(`/campaigns/${campaign.id}/cancel`)).status, 200);
    const cancelled = await project.api.put(`/campaigns/${campaign.id}`, campaignBody(from));
    assert.equal(cancelled.status, 400, cancelled.text);
    assert.equal(cancelled.body.error.code, 'CAMPAIGN_STATE_INVALID');
    assert.equal((await project.api.put(`/campaigns/${randomUUID()}`, campaignBody(from))).status, 404);
  });

  test('GET /campaigns: offset pagination, status filter (400 when unknown), search on name, subject and sender, sort and dir', async () => {
    const own = await createProject(server.url);
    const sender = `hello@${(await verifiedDomain(own, dns)).domain}`;
    await seedContacts(own.api, makeContacts('list', 2));
    const names = ['Charlie', 'alpha', 'Bravo', 'delta'];
    const made = [];
    for (const name of names) made.push(await createCampaign(own.api, campaignBody(sender, { name, subject: `About ${name.toLowerCase()} things` })));
    await own.api.post(`/campaigns/${made[0].id}/send`, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });

    const first = await own.api.get('/campaigns?pageSize=3');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.body.page, first.body.pageSize, first.body.total, first.body.totalPages], [1, 3, 4, 2]);
    assert.deepEqual(
      first.body.data.map((c: { name: string }) => c.name),
      ['delta', 'Bravo', 'alpha'],
      'newest first by default',
    );
    const second = await own.api.get('/campaigns?pageSize=3&page=2');
    assert.deepEqual(
      second.body.data.map((c: { name: string }) => c.name),
      ['Charlie'],
    );

    const byName = await own.api.get('/campaigns?sort=name&dir=asc');
    assert.deepEqual(
      byName.body.data.map((c: { name: string }) => c.name),
      ['alpha', 'Bravo', 'Charlie', 'delta'],
    );
    const fallback = await own.api.get('/campaigns?sort=nonsense&dir=sideways');
    assert.deepEqual(
      fallback.body.data.map((c: { name: string }) => c.name),
      ['delta', 'Bravo', 'alpha', 'Charlie'],
    );

    const scheduled = await own.api.get('/campaigns?status=SCHEDULED');
    assert.deepEqual(
      scheduled.body.data.map((c: { name: string }) => c.name),
      ['Charlie'],
    );
    assert.equal(scheduled.body.total, 1);
    const unknown = await own.api.get('/campaigns?status=PAUSED');
    assert.equal(unknown.status, 400, unknown.text);

    assert.deepEqual(
      (await own.api.get('/campaigns?search=BRAV')).body.data.map((c: { name: string }) => c.name),
      ['Bravo'],
    );
    assert.equal((await own.api.get('/campaigns?search=delta%20things')).body.total, 1, 'subject');
    assert.equal((await own.api.get(`/campaigns?search=${encodeURIComponent(sender.toUpperCase())}`)).body.total, 4, 'sender address');
    assert.equal((await own.api.get('/campaigns?search=%25')).body.total, 0, '% is literal');
    const big = await own.api.get('/campaigns?pageSize=1000');
    assert.equal(big.body.pageSize, 100, 'clamped');
  });

  test('duplicate → 201 a DRAFT copy named "(copy)" with zero counters; DELETE of DRAFT, SCHEDULED and CANCELLED → 204', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from, { name: 'Original' }));
    await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    const copy = await project.api.post(`/campaigns/${campaign.id}/duplicate`);
    assert.equal(copy.status, 201, copy.text);
    assert.equal(copy.body.success, true);
    const data = copy.body.data;
    assert.notEqual(data.id, campaign.id);
    assert.deepEqual([data.name, data.status, data.scheduledFor, data.subject, data.totalRecipients], ['Original (copy)', 'DRAFT', null, campaign.subject, 8]);
    assert.equal((await project.api.post(`/campaigns/${randomUUID()}/duplicate`)).status, 404);

    assert.equal((await project.api.delete(`/campaigns/${data.id}`)).status, 204, 'DRAFT');
    assert.equal((await project.api.get(`/campaigns/${data.id}`)).status, 404);
    assert.equal((await project.api.delete(`/campaigns/${campaign.id}`)).status, 204, 'SCHEDULED: cancelled, then deleted');
    assert.equal((await project.api.get(`/campaigns/${campaign.id}`)).status, 404);
    assert.equal((await project.api.delete(`/campaigns/${campaign.id}`)).status, 404);

    const cancelled = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${cancelled.id}/send`, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    await project.api.post(`/campaigns/${cancelled.id}/cancel`);
    assert.equal((await project.api.delete(`/campaigns/${cancelled.id}`)).status, 204, 'CANCELLED');
  });

  test('send now: SENDING with sentAt, then SENT; a SENT campaign cannot be sent, cancelled or edited again, and deletes with 204', async () => {
    const own = await createProject(server.url);
    const sender = `hello@${(await verifiedDomain(own, dns)).domain}`;
    await seedContacts(own.api, makeContacts('now', 3));
    const campaign = await createCampaign(own.api, campaignBody(sender));
    const sent = await own.api.post(`/campaigns/${campaign.id}/send`, {});
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.success, true);
    assert.equal(typeof sent.body.message, 'string');
    assert.equal(sent.body.data.status, 'SENDING');
    assert.ok(sent.body.data.sentAt);
    assert.equal(sent.body.data.scheduledFor, null);
    const done = await waitForCampaign(own.api, campaign.id, ['SENT']);
    assert.deepEqual([done.totalRecipients, done.sentCount, done.deliveredCount], [3, 3, 3]);
    assert.equal(done.sentAt, sent.body.data.sentAt);

    const again = await own.api.post(`/campaigns/${campaign.id}/send`, {});
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'CAMPAIGN_STATE_INVALID');
    assert.equal((await own.api.post(`/campaigns/${campaign.id}/cancel`)).status, 400);
    assert.equal((await own.api.put(`/campaigns/${campaign.id}`, campaignBody(sender))).status, 400);
    const copy = await own.api.post(`/campaigns/${campaign.id}/duplicate`);
    assert.deepEqual([copy.body.data.status, copy.body.data.sentCount, copy.body.data.sentAt], ['DRAFT', 0, null]);
    assert.equal((await own.api.delete(`/campaigns/${campaign.id}`)).status, 204);
  });

  test('send: 422 for a non-UUID id, 404 when unknown, 400 for an unparseable or past scheduledFor, 400 with no eligible recipient', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from));
    const notUuid = await project.api.post('/campaigns/123/send', {});
    assert.equal(notUuid.status, 422, notUuid.text);
    assert.equal(notUuid.body.error.code, 'VALIDATION_ERROR');
    assert.equal((await project.api.post(`/campaigns/${randomUUID()}/send`, {})).status, 404);
    for (const scheduledFor of ['next tuesday-ish', '2026-13-45T99:00:00Z', '', true, { at: 'tomorrow' }]) {
      const res = await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor });
      assert.equal(res.status, 400, `${scheduledFor}: ${res.text}`);
    }
    const past = await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: '2020-01-01T00:00:00Z' });
    assert.equal(past.status, 400, past.text);
    assert.match(past.body.error.message, /past/);
    assert.equal((await project.api.get(`/campaigns/${campaign.id}`)).body.data.status, 'DRAFT', 'nothing changed');

    const empty = await createProject(server.url);
    const sender = `hello@${(await verifiedDomain(empty, dns)).domain}`;
    await seedContacts(empty.api, [{ email: 'off@recipients.example.test', subscribed: false }]);
    const nobody = await createCampaign(empty.api, campaignBody(sender));
    const refused = await empty.api.post(`/campaigns/${nobody.id}/send`, {});
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'CAMPAIGN_NO_RECIPIENTS');
    const transactional = await createCampaign(empty.api, campaignBody(sender, { type: 'TRANSACTIONAL' }));
    assert.equal((await empty.api.post(`/campaigns/${transactional.id}/send`, {})).status, 200, 'TRANSACTIONAL reaches the unsubscribed');
  });

  test('schedule, re-schedule, send a SCHEDULED one now; cancel: SCHEDULED → CANCELLED (final), other states → 400', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from));
    const notYet = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    assert.equal(notYet.status, 400, 'a DRAFT cannot be cancelled');
    const at = new Date(Date.now() + 3_600_000);
    const scheduled = await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: at.toUTCString() });
    assert.equal(scheduled.status, 200, scheduled.text);
    assert.deepEqual([scheduled.body.data.status, scheduled.body.data.totalRecipients, scheduled.body.data.sentAt], ['SCHEDULED', 8, null]);
    assert.equal(scheduled.body.data.scheduledFor, new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString(), 'any format Date parses');
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const moved = await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: later });
    assert.equal(moved.body.data.scheduledFor, later);

    const cancelled = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'CANCELLED');
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/cancel`)).status, 400, 'CANCELLED is final');
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`, {})).status, 400);
    assert.equal((await project.api.post(`/campaigns/${randomUUID()}/cancel`)).status, 404);

    const own = await createProject(server.url);
    const sender = `hello@${(await verifiedDomain(own, dns)).domain}`;
    await seedContacts(own.api, makeContacts('resend', 2));
    const soon = await createCampaign(own.api, campaignBody(sender));
    await own.api.post(`/campaigns/${soon.id}/send`, { scheduledFor: later });
    const now = await own.api.post(`/campaigns/${soon.id}/send`, { scheduledFor: null });
    assert.equal(now.status, 200, now.text);
    assert.equal(now.body.data.status, 'SENDING', 'a SCHEDULED campaign sent again without a time goes now');
    assert.equal(now.body.data.scheduledFor, null, 'sent immediately: no scheduledFor');
    await waitForCampaign(own.api, soon.id, ['SENT']);
  });
});
