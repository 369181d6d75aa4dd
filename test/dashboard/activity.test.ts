import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

describe('Dashboard: the activity feed', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  test('the feed lists events with links to the contact, filters by type, and offers what arrives while it is open', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    for (const [email, event] of [
      ['sigrid@fjord.example', 'signed-up'],
      ['kenji@onsen.example', 'signed-up'],
      ['kenji@onsen.example', 'trial-started'],
    ]) {
      const tracked = await project.publicApi.post('/v1/track', { email, event, data: { plan: 'pro', source: 'landing — 日本語' } });
      assert.equal(tracked.status, 200, tracked.text);
    }
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/activity`);
      const feed = page.getByRole('table', { name: 'Activity' });
      await feed.getByText('trial-started').waitFor();
      assert.equal(await feed.getByText('signed-up').count(), 2);
      await assertAccessible(page, 'activity');
      await screenshot(page, 'activity');

      await page.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: 'trial-started' }).click();
      await feed.getByText('signed-up').first().waitFor({ state: 'detached' });
      // The old rows may go before the filtered page shows (its request still running).
      await feed.getByText('trial-started').waitFor();
      assert.equal(await feed.locator('tbody tr').count(), 1);
      await page.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: 'trial-started' }).click();
      await feed.getByText('signed-up').first().waitFor();

      // While the page is open, new activity is counted by polling and shown on request.
      const sent = await project.api.post('/v1/send', { to: 'sigrid@fjord.example', from, subject: 'Welcome, Sigrid', body: '<p>Velkommen!</p><p>Your trial starts today.</p>' });
      assert.equal(sent.status, 200, sent.text);
      const showNew = page.getByRole('button', { name: /^Show \d+\+? new$/ });
      await showNew.waitFor({ timeout: 30_000 });
      await showNew.click();
      await feed
        .getByText(/^email\./)
        .first()
        .waitFor();

      await feed.getByRole('link', { name: 'kenji@onsen.example' }).first().click();
      await page.getByRole('heading', { name: 'kenji@onsen.example' }).waitFor();

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/activity`, 'activity', (p) => p.getByRole('table', { name: 'Activity' }).waitFor());
    } finally {
      await page.context().close();
    }
  });
});
