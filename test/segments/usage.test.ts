import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignBody, createCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { buildWorkflow } from '../kit/workflows.ts';

// GET /segments/{id}/usage (docs/decisions/segments.md, "Used by").
describe('GET /segments/{id}/usage: the campaigns, segments and workflows that use a segment', () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  test('campaigns with it as audience or in their filter, segments built on it, workflows its membership events start', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const created = await project.api.post('/segments', {
      name: 'Readers in Tromsø — VIP',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'Tromsø' }] }] },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const other = await project.api.post('/segments', {
      name: 'Everyone in Oslo',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'Oslo' }] }] },
    });

    const empty = await project.api.get(`/segments/${id}/usage`);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, {
      campaigns: [],
      segments: [],
      workflows: [],
      membershipEvents: { entry: 'segment.readers-in-troms-vip.entry', exit: 'segment.readers-in-troms-vip.exit' },
    });

    const bySegment = await createCampaign(project.api, campaignBody(from, { name: 'Winter roast — Tromsø', audienceType: 'SEGMENT', segmentId: id }));
    const byFilter = await createCampaign(
      project.api,
      campaignBody(from, {
        name: 'Pro readers in the segment',
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [
            {
              filters: [
                { field: 'data.plan', operator: 'equals', value: 'pro' },
                { field: `segment.${id}`, operator: 'memberOfSegment' },
              ],
            },
          ],
        },
      }),
    );
    await createCampaign(project.api, campaignBody(from, { name: 'Everyone', audienceType: 'ALL' }));
    const nested = await project.api.post('/segments', {
      name: 'VIP readers outside Oslo',
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: `segment.${id}`, operator: 'memberOfSegment' },
              { field: `segment.${other.body.id}`, operator: 'notMemberOfSegment' },
            ],
          },
        ],
      },
    });
    assert.equal(nested.status, 201, nested.text);
    const welcome = await buildWorkflow(project.api, { name: 'Welcome to Tromsø', eventName: 'segment.readers-in-troms-vip.entry' });
    await buildWorkflow(project.api, { name: 'Unrelated', eventName: 'order.placed' });

    const usage = await project.api.get(`/segments/${id}/usage`);
    assert.deepEqual(
      usage.body.campaigns.map((c: { id: string; name: string; status: string }) => [c.id, c.name, c.status]).sort(),
      [
        [bySegment.id, 'Winter roast — Tromsø', 'DRAFT'],
        [byFilter.id, 'Pro readers in the segment', 'DRAFT'],
      ].sort(),
    );
    assert.deepEqual(usage.body.segments, [{ id: nested.body.id, name: 'VIP readers outside Oslo' }]);
    assert.deepEqual(usage.body.workflows, [{ id: welcome.id, name: 'Welcome to Tromsø', enabled: false, eventName: 'segment.readers-in-troms-vip.entry' }]);

    const untracked = await project.api.get(`/segments/${other.body.id}/usage`);
    assert.equal(untracked.body.membershipEvents, null);
    assert.deepEqual(untracked.body.segments, [{ id: nested.body.id, name: 'VIP readers outside Oslo' }]);
    assert.equal((await project.api.get('/segments/00000000-0000-4000-8000-000000000000/usage')).status, 404);
  });
});
