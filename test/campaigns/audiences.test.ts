import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { campaignBody, countByRecipient, createCampaign, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const at = (label: string) => `${label}@audience.example.test`;
const proOnly = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('campaign audiences: SEGMENT and FILTERED (docs/decisions/segments.md, docs/decisions/campaigns.md, docs/decisions/segments.md)', () => {
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
    const contacts = [
      { email: at('pro-1'), subscribed: true, data: { plan: 'pro' } },
      { email: at('pro-2'), subscribed: true, data: { plan: 'pro' } },
      { email: at('pro-off'), subscribed: false, data: { plan: 'pro' } },
      { email: at('free-1'), subscribed: true, data: { plan: 'free' } },
      { email: at('free-2'), subscribed: true, data: { plan: 'free' } },
    ];
    for (const contact of contacts) assert.equal((await project.api.post('/contacts', contact)).status, 201);
    for (const email of [at('pro-2'), at('free-1')]) assert.equal((await project.publicApi.post('/v1/track', { email, event: 'signup' })).status, 200);
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  /** Sends a campaign, waits for SENT, and returns who received it. */
  async function sendAndCollect(campaign: { id: string; subject: string }) {
    const marker = `[${campaign.id}]`;
    const res = await project.api.put(`/campaigns/${campaign.id}`, {
      ...(await project.api.get(`/campaigns/${campaign.id}`)).body.data,
      subject: marker,
      description: undefined,
      fromName: undefined,
      replyTo: undefined,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    const done = await waitForCampaign(project.api, campaign.id, ['SENT']);
    return { done, received: [...countByRecipient(sink.messages.filter((m) => m.parsed.subject === marker).map((m) => m.envelope.to)).keys()].sort() };
  }

  test('FILTERED: only the subscribed contacts matching the condition; a data and an event filter', async () => {
    const campaign = await createCampaign(project.api, campaignBody(from, { audienceType: 'FILTERED', audienceCondition: proOnly, segmentId: randomUUID() }));
    assert.deepEqual([campaign.audienceType, campaign.audienceCondition, campaign.segmentId, campaign.totalRecipients], ['FILTERED', proOnly, null, 2]);
    const { done, received } = await sendAndCollect(campaign);
    assert.deepEqual(received, [at('pro-1'), at('pro-2')]);
    assert.equal(done.totalRecipients, 2);

    const signedUp = { logic: 'OR', groups: [{ filters: [{ field: 'event.signup', operator: 'triggered' }] }] };
    const byEvent = await createCampaign(project.api, campaignBody(from, { audienceType: 'FILTERED', audienceCondition: signedUp }));
    assert.deepEqual((await sendAndCollect(byEvent)).received, [at('free-1'), at('pro-2')]);
  });

  test('FILTERED: an invalid condition is a 422 naming the path of the bad filter; an unknown segment in it too', async () => {
    const bad = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'data.plan', operator: 'triggered' },
          ],
        },
      ],
    };
    const res = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'FILTERED', audienceCondition: bad }));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.equal(res.body.error.errors[0].field, 'audienceCondition.groups.0.filters.1.operator');

    const noLogic = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'FILTERED', audienceCondition: { groups: [] } }));
    assert.equal(noLogic.status, 422, noLogic.text);
    assert.equal(noLogic.body.error.errors[0].field, 'audienceCondition.logic');

    const ghost = { logic: 'AND', groups: [{ filters: [{ field: `segment.${randomUUID()}`, operator: 'memberOfSegment' }] }] };
    const unknown = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'FILTERED', audienceCondition: ghost }));
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.error.errors[0].field, 'audienceCondition.groups.0.filters.0.field');

    const campaign = await createCampaign(project.api, campaignBody(from));
    const put = await project.api.put(`/campaigns/${campaign.id}`, campaignBody(from, { audienceType: 'FILTERED', audienceCondition: bad }));
    assert.equal(put.status, 422, 'PUT checks the same way');
  });

  test('SEGMENT: the members of a dynamic or a static segment (subscribed ones); an unknown segment → 404', async () => {
    const dynamic = await project.api.post('/segments', { name: 'Pro users', condition: proOnly });
    assert.equal(dynamic.status, 201, dynamic.text);
    const toDynamic = await createCampaign(project.api, campaignBody(from, { audienceType: 'SEGMENT', segmentId: dynamic.body.id, audienceCondition: proOnly }));
    assert.deepEqual([toDynamic.segmentId, toDynamic.audienceCondition, toDynamic.totalRecipients], [dynamic.body.id, null, 2]);
    assert.deepEqual((await sendAndCollect(toDynamic)).received, [at('pro-1'), at('pro-2')]);

    const fixed = await project.api.post('/segments', { name: 'Hand picked', type: 'STATIC' });
    assert.equal(fixed.status, 201, fixed.text);
    const added = await project.api.post(`/segments/${fixed.body.id}/members`, { emails: [at('free-2'), at('pro-off')] });
    assert.equal(added.status, 200, added.text);
    const toStatic = await createCampaign(project.api, campaignBody(from, { audienceType: 'SEGMENT', segmentId: fixed.body.id }));
    assert.equal(toStatic.totalRecipients, 1, 'the unsubscribed member is not counted');
    assert.deepEqual((await sendAndCollect(toStatic)).received, [at('free-2')]);

    const unknown = await project.api.post('/campaigns', campaignBody(from, { audienceType: 'SEGMENT', segmentId: randomUUID() }));
    assert.equal(unknown.status, 404, unknown.text);
  });

  test('a segment used by a DRAFT or SCHEDULED campaign cannot be deleted (409); once the campaign is sent it can', async () => {
    const segment = await project.api.post('/segments', { name: 'Guarded', condition: proOnly });
    const campaign = await createCampaign(project.api, campaignBody(from, { audienceType: 'SEGMENT', segmentId: segment.body.id }));
    const refused = await project.api.delete(`/segments/${segment.body.id}`);
    assert.equal(refused.status, 409, refused.text);
    await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal((await project.api.delete(`/segments/${segment.body.id}`)).status, 409, 'SCHEDULED');

    const viaFilter = await project.api.post('/segments', { name: 'Inside a filter', condition: proOnly });
    const membership = { logic: 'AND', groups: [{ filters: [{ field: `segment.${viaFilter.body.id}`, operator: 'memberOfSegment' }] }] };
    const filtered = await createCampaign(project.api, campaignBody(from, { audienceType: 'FILTERED', audienceCondition: membership }));
    assert.equal(filtered.totalRecipients, 2);
    assert.equal((await project.api.delete(`/segments/${viaFilter.body.id}`)).status, 409, 'a FILTERED condition naming it');

    await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: null });
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    assert.equal((await project.api.delete(`/segments/${segment.body.id}`)).status, 204, 'a SENT campaign does not hold it');
    const kept = await project.api.get(`/campaigns/${campaign.id}`);
    assert.equal(kept.body.data.segmentId, segment.body.id, 'the sent campaign keeps the id');
    const copy = await project.api.post(`/campaigns/${campaign.id}/duplicate`);
    assert.deepEqual([copy.status, copy.body.data.totalRecipients], [201, 0], 'its copy is a DRAFT of no one yet');
  });

  test('usage endpoints list FILTERED campaigns by the fields and event names their condition uses', async () => {
    const own = await createProject(server.url);
    const sender = `hello@${(await verifiedDomain(own, dns)).domain}`;
    await own.api.post('/contacts', { email: at('usage'), data: { plan: 'pro', city: 'Oslo' } });
    const condition = {
      logic: 'OR',
      groups: [
        {
          filters: [{ field: 'data.plan', operator: 'exists' }],
          conditions: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'event.upgraded', operator: 'triggered' },
                  { field: 'email', operator: 'contains', value: '@' },
                ],
              },
            ],
          },
        },
      ],
    };
    const campaign = await createCampaign(own.api, campaignBody(sender, { name: 'Uses plan', audienceType: 'FILTERED', audienceCondition: condition }));
    const plan = await own.api.get('/contacts/fields/plan/usage');
    assert.equal(plan.status, 200, plan.text);
    assert.deepEqual(plan.body.campaigns, [{ id: campaign.id, name: 'Uses plan' }]);
    assert.deepEqual((await own.api.get('/contacts/fields/city/usage')).body.campaigns, []);
    assert.deepEqual((await own.api.get('/contacts/fields/email/usage')).body.campaigns, [{ id: campaign.id, name: 'Uses plan' }], 'a standard field');
    const event = await own.api.get('/events/upgraded/usage');
    assert.equal(event.status, 200, event.text);
    assert.deepEqual(event.body.campaigns, [{ id: campaign.id, name: 'Uses plan' }]);
    assert.deepEqual((await own.api.get('/events/signup/usage')).body.campaigns, []);
  });
});
