import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { waitForRollup } from '../kit/rollups.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

describe('Dashboard: analytics', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  test('real sends, an open, a click and tracked events show as totals, a series in the chosen time zone and top events', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const tracking = await project.dashboard.patch(`/users/@me/projects/${project.id}`, { tracking: { opens: 'all' } });
    assert.equal(tracking.status, 200, tracking.text);
    const sent = await project.api.post('/v1/send', {
      to: [uniqueEmail('ana'), uniqueEmail('bo'), uniqueEmail('chen')],
      from: `news@${domain.domain}`,
      subject: 'Autumn roast — 秋のブレンド',
      body: '<html><body><h1>Our autumn roast</h1><p>Notes of fig and cocoa. <a href="https://example.com/autumn">Order it here</a>.</p><ul><li>250 g</li><li>1 kg</li></ul></body></html>',
    });
    assert.equal(sent.status, 200, sent.text);
    const ids: string[] = sent.body.data.emails.map((e: { email: string }) => e.email);
    for (const id of ids) await waitForStatus(project.api, id, ['DELIVERED']);
    // One recipient opens the message and clicks its link, as a mail client would.
    const html = ((await simpleParser(readFileSync(join(server.dataDir, 'outbox', `${ids[0]}.eml`)))).html || '') as string;
    const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '').replaceAll('&amp;', '&');
    const http = client(server.url);
    assert.equal((await http.get(local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]!))).status, 200);
    assert.ok([200, 302].includes((await http.get(local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!))).status));
    for (const event of ['order.placed', 'order.placed', 'order.placed', 'newsletter.signup']) {
      const res = await project.publicApi.post('/v1/track', { email: uniqueEmail('shopper'), event, data: { total: 18.5 } });
      assert.equal(res.status, 200, res.text);
    }
    await waitForRollup(project.api);

    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}`);
      await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Analytics' }).click();
      await page.getByRole('heading', { name: 'Analytics' }).waitFor();
      await page.getByText('24 hours', { exact: true }).click();
      await page.getByText(/^Per hour in /).waitFor();

      for (const [label, value] of [
        ['Sent', 3],
        ['Delivered', 3],
        ['Opened', 1],
        ['Clicked', 1],
        ['Bounced', 0],
      ] as const) {
        await page.getByRole('group', { name: `${label}: ${value}` }).waitFor();
      }
      const events = page.getByRole('table', { name: 'Top events' });
      await events.getByRole('row').nth(1).getByText('order.placed').waitFor();
      assert.deepEqual(await events.getByRole('row').nth(1).getByRole('cell').allInnerTexts(), ['order.placed', '3']);
      await events.getByText('newsletter.signup').waitFor();
      await page.getByText('No campaign activity in this window').waitFor();
      // The service's own events are one switch away.
      await page.getByRole('region', { name: 'Top events' }).getByText('All', { exact: true }).click();
      await events.getByText('email.delivered').waitFor();

      // Another time zone: the buckets follow it, and the address keeps the choice.
      await page.getByRole('combobox', { name: 'Time zone' }).fill('Asia/Tok');
      await page.getByRole('option', { name: 'Asia/Tokyo' }).click();
      await page.getByText('Per hour in Asia/Tokyo').waitFor();
      assert.equal(new URL(page.url()).searchParams.get('tz'), 'Asia/Tokyo');
      await page.getByRole('button', { name: 'Show the figures as a table' }).click();
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' })
          .formatToParts(new Date())
          .map((p) => [p.type, p.value]),
      );
      const tokyoHour = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:00`;
      const figures = page.getByRole('table', { name: 'Email activity figures' });
      const nowRow = figures.getByRole('row').filter({ hasText: tokyoHour });
      await nowRow.waitFor();
      // The hour is the row's header; its cells are the figures.
      assert.deepEqual(await nowRow.getByRole('cell').allInnerTexts(), ['3', '3', '1', '1', '0'], 'this hour in Tokyo holds the sends');

      await assertAccessible(page, 'analytics');
      await screenshot(page, 'analytics');
      await page.reload();
      await page.getByText('Per hour in Asia/Tokyo').waitFor();
      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/analytics?range=7d&tz=Europe%2FOslo`, 'analytics', (p: Page) =>
        p.getByText('Per day in Europe/Oslo').waitFor(),
      );
    } finally {
      await page.context().close();
    }
  });
});
