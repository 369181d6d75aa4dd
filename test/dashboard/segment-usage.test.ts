import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, BROWSER_PASS, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { campaignBody, createCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

describe('Dashboard: a segment page says what uses the segment and who entered and left it', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  test('a marketer checks what sends to a tracked segment, and its entries and exits after a recompute', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const people = [
      ['ingrid.berg@fjord.example', 'Tromsø'],
      ['sigrid.dahl@fjord.example', 'Tromsø'],
      ['kenji.sato@onsen.example', '京都'],
    ] as const;
    const ids: Record<string, string> = {};
    for (const [email, city] of people) ids[email] = (await project.api.post('/contacts', { email, data: { city } })).body.id;
    const segment = await project.api.post('/segments', {
      name: 'Readers in Tromsø',
      trackMembership: true,
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'Tromsø' }] }] },
    });
    assert.equal(segment.status, 201, segment.text);
    assert.equal((await project.api.post(`/segments/${segment.body.id}/compute`)).body.entered, 2);
    const campaign = await createCampaign(project.api, campaignBody(from, { name: 'Vinterens nyheter', audienceType: 'SEGMENT', segmentId: segment.body.id }));
    await project.api.patch(`/contacts/${ids['sigrid.dahl@fjord.example']}`, { data: { city: 'Oslo' } });
    assert.equal((await project.api.post(`/segments/${segment.body.id}/compute`)).body.exited, 1);

    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/segments/${segment.body.id}`);
      const usedBy = page.getByRole('region', { name: 'Used by' });
      await usedBy.getByRole('list', { name: 'Campaigns' }).getByRole('link', { name: 'Vinterens nyheter' }).waitFor();
      assert.equal(await usedBy.getByRole('link', { name: 'Vinterens nyheter' }).getAttribute('href'), `/p/${project.id}/campaigns/${campaign.id}`);
      const history = page.getByRole('table', { name: 'Entries and exits' });
      await history
        .getByRole('row', { name: /sigrid\.dahl/ })
        .first()
        .waitFor();
      const rows = await history.locator('tbody tr').allInnerTexts();
      assert.equal(rows.length, 3, rows.join(' | '));
      assert.match(rows[0]!, /sigrid\.dahl@fjord\.example[\s\S]*Left/i, 'the newest change first: Sigrid left');
      assert.equal(rows.filter((r) => /Entered/i.test(r)).length, 2);
      await assertAccessible(page, 'a tracked segment with its usage and history');
      await screenshot(page, 'segment-usage');
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });
});
