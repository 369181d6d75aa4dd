import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { campaignBody, createCampaign, seedContacts, until } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// docs/streams.md: a sending campaign's page says in words what holds part of it back: the sending
// domain's warm-up cap, and receivers that deferred its mail (per-provider throttles).

const GMAIL_HOSTED = 'fjordkaffe-kunder.no';

describe('Dashboard: a sending campaign says why some of its mail waits', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let page: Page;
  const ui = useDashboardBrowser();
  before(async () => {
    // Gmail defers every first attempt with its rate answer (the 5 that leave on day one).
    sink = await startSmtpSink({
      reply: (_to, attempt) => (attempt === 1 ? { code: 421, message: '4.7.28 Our system has detected an unusual rate of unsolicited mail. Try again later.' } : undefined),
    });
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
    dns.set(GMAIL_HOSTED, 'MX', [{ exchange: 'aspmx.l.google.com', priority: 1 }]);
  });
  after(async () => {
    await page?.context().close();
    await server?.close();
    await sink?.close();
  });

  test('12 recipients under a warm-up cap of 5: how many wait for the sending domain’s warm-up and until when, and Gmail’s slow-down, in words', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const set = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true, schedule: [5, 50] } });
    assert.equal(set.status, 200, set.text);
    await seedContacts(
      project.api,
      Array.from({ length: 12 }, (_, i) => ({ email: `reader${i}@${GMAIL_HOSTED}`, subscribed: true, name: `Reader ${i}` })),
    );
    const campaign = await createCampaign(project.api, campaignBody(`kaffe@${domain.domain}`, { name: 'Vinterkaffe' }));
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    let stats: any;
    // The 5 deferred are retried, and a retry is another message handed over: it waits for the next day too.
    await until('7 or more waiting and Gmail throttled', async () => {
      stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
      return stats.warmupWaiting.count >= 7 && stats.throttledProviders.length === 1;
    });
    assert.equal(stats.throttledProviders[0].provider, 'gmail');
    assert.ok(stats.throttledProviders[0].ratePerSecond < stats.throttledProviders[0].maxPerSecond);

    page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/campaigns/${campaign.id}`);
      const waits = page.getByTestId('campaign-waits');
      await waits.getByText(/^(7|8|9|10|11|12) messages wait for the sending domain’s warm-up: today’s cap is used up\. They leave from /).waitFor();
      await waits.getByText(/^Gmail asked to slow down: mail to it leaves at [\d.,]+ a second for now/).waitFor();
      await assertAccessible(page, 'campaign waiting for its warm-up');
    } catch (error) {
      throw await withPageState(page, error);
    }
  });
});
