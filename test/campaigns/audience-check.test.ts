import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const at = (label: string) => `${label}@check.example.test`;
const proOnly = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

type Expected = { total: number; eligible: number; suppressed: number; snoozed: number; unsubscribed: number };

// The sends run side by side (one project, read-only contacts, each campaign its own subject).
describe('the audience check: who a send would mail now, and why not the others (docs/campaigns.md)', { concurrency: true }, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let project: TestProject;
  let from: string;
  let segmentId: string;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
    project = await createProject(server.url);
    from = `news@${(await verifiedDomain(project, dns)).domain}`;
    const contacts = [
      { email: at('pro-1'), subscribed: true, data: { plan: 'pro', name: '山田 花子' } },
      { email: at('pro-2'), subscribed: true, data: { plan: 'pro', name: 'Zoë Ångström' } },
      { email: at('pro-3'), subscribed: true, data: { plan: 'pro', name: 'Олег' } },
      { email: at('pro-off'), subscribed: false, data: { plan: 'pro' } },
      { email: at('pro-snoozed'), subscribed: true, data: { plan: 'pro' } },
      { email: at('pro-suppressed'), subscribed: true, data: { plan: 'pro' } },
      { email: at('free-1'), subscribed: true, data: { plan: 'free' } },
      { email: at('free-2'), subscribed: true, data: { plan: 'free' } },
      { email: at('free-off'), subscribed: false, data: { plan: 'free' } },
    ];
    const ids = new Map<string, string>();
    for (const contact of contacts) {
      const res = await project.api.post('/contacts', contact);
      assert.equal(res.status, 201, res.text);
      ids.set(contact.email, res.body.id);
    }
    const snooze = await project.api.patch(`/contacts/${ids.get(at('pro-snoozed'))}`, { snoozedUntil: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    assert.equal(snooze.status, 200, snooze.text);
    const suppress = await project.api.post('/suppressions', { email: at('pro-suppressed') });
    assert.ok(suppress.status < 300, suppress.text);
    const segment = await project.api.post('/segments', {
      name: 'Free, or held back',
      condition: {
        logic: 'OR',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] }, { filters: [{ field: 'email', operator: 'contains', value: 'pro-s' }] }],
      },
    });
    assert.equal(segment.status, 201, segment.text);
    segmentId = segment.body.id;
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  const audiences = () => ({
    ALL: { audienceType: 'ALL' },
    SEGMENT: { audienceType: 'SEGMENT', segmentId },
    FILTERED: { audienceType: 'FILTERED', audienceCondition: proOnly },
  });
  // Nine contacts: six pro (one unsubscribed, one snoozed, one suppressed), three free (one unsubscribed).
  const expected: Record<string, Record<string, Expected>> = {
    MARKETING: {
      ALL: { total: 9, eligible: 5, suppressed: 1, snoozed: 1, unsubscribed: 2 },
      SEGMENT: { total: 5, eligible: 2, suppressed: 1, snoozed: 1, unsubscribed: 1 },
      FILTERED: { total: 6, eligible: 3, suppressed: 1, snoozed: 1, unsubscribed: 1 },
    },
    TRANSACTIONAL: {
      ALL: { total: 9, eligible: 8, suppressed: 1, snoozed: 0, unsubscribed: 0 },
      SEGMENT: { total: 5, eligible: 4, suppressed: 1, snoozed: 0, unsubscribed: 0 },
      FILTERED: { total: 6, eligible: 5, suppressed: 1, snoozed: 0, unsubscribed: 0 },
    },
  };

  for (const type of ['MARKETING', 'TRANSACTIONAL'] as const) {
    for (const audienceType of ['ALL', 'SEGMENT', 'FILTERED'] as const) {
      test(`${type} to ${audienceType}: eligible is the totalRecipients of the send started right after, and the mail that leaves`, async () => {
        const audience = audiences()[audienceType];
        const want = expected[type]![audienceType]!;
        const check = await project.api.post('/campaigns/audience', { type, ...audience });
        assert.equal(check.status, 200, check.text);
        const { total, eligible, excluded, sample } = check.body;
        assert.deepEqual({ total, eligible, ...excluded }, want);
        assert.equal(sample.length, eligible, 'fewer than 10 eligible: all of them are the sample');
        assert.ok(!sample.some((c: { email: string }) => c.email === at('pro-suppressed')), 'the suppressed are never in the sample');

        const subject = `Nouvelles du printemps — ${type} ${audienceType} ${randomUUID()}`;
        const campaign = await createCampaign(project.api, campaignBody(from, { type, subject, ...audience }));
        const saved = await project.api.get(`/campaigns/${campaign.id}/audience`);
        assert.equal(saved.status, 200, saved.text);
        assert.deepEqual(
          { ...saved.body, sample: saved.body.sample.map((c: { email: string }) => c.email) },
          { ...check.body, sample: sample.map((c: { email: string }) => c.email) },
        );

        assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
        const done = await waitForCampaign(project.api, campaign.id, ['SENT']);
        assert.equal(done.totalRecipients, eligible);
        assert.equal(done.sentCount, eligible, 'every eligible recipient was handed to the transport');
        const received = sink.messages.filter((m) => m.parsed.subject === subject).map((m) => m.envelope.to[0]!.toLowerCase());
        assert.deepEqual(received.sort(), sample.map((c: { email: string }) => c.email).sort());

        const refused = await project.api.get(`/campaigns/${campaign.id}/audience`);
        assert.equal(refused.status, 400, 'a SENT campaign has a fixed audience');
      });
    }
  }

  test('the recipients list: every record of the send, paged, with its status, and filtered by status', async () => {
    const subject = `Recipients ${randomUUID()}`;
    const campaign = await createCampaign(project.api, campaignBody(from, { subject, type: 'TRANSACTIONAL' }));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    const first = await project.api.get(`/campaigns/${campaign.id}/recipients?pageSize=5`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.body.total, first.body.totalPages, first.body.data.length], [9, 2, 5], 'eight sent and one SUPPRESSED record');
    const second = await project.api.get(`/campaigns/${campaign.id}/recipients?pageSize=5&page=2`);
    const all = [...first.body.data, ...second.body.data];
    assert.deepEqual(
      all.map((r: { email: string }) => r.email),
      [...all.map((r: { email: string }) => r.email)].sort(),
      'by address',
    );
    const suppressed = await project.api.get(`/campaigns/${campaign.id}/recipients?status=SUPPRESSED`);
    assert.deepEqual(
      suppressed.body.data.map((r: { email: string; status: string }) => [r.email, r.status]),
      [[at('pro-suppressed'), 'SUPPRESSED']],
    );
    const email = await project.api.get(`/emails/${all[0].emailId}`);
    assert.equal(email.status, 200, 'each row links to its email record');
    assert.equal((await project.api.get(`/campaigns/${randomUUID()}/recipients`)).status, 404);
  });

  test('a bad audience is refused as campaign create refuses it', async () => {
    assert.equal((await project.api.post('/campaigns/audience', { audienceType: 'SEGMENT' })).status, 400);
    assert.equal((await project.api.post('/campaigns/audience', { audienceType: 'SEGMENT', segmentId: randomUUID() })).status, 404);
    const bad = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'triggered' }] }] };
    const res = await project.api.post('/campaigns/audience', { audienceType: 'FILTERED', audienceCondition: bad });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.errors[0].field, 'audienceCondition.groups.0.filters.0.operator');
  });
});
