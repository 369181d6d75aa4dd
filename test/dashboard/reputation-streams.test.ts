import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { pauseMarketing } from '../../src/reputation/reputation.queries.ts';
import { createProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

// docs/decisions/reputation.md, "Per stream": the settings page shows the rates of each stream, and
// marketing mail paused for its rates with the reason, which an owner resumes from there.

const REASON =
  'Marketing mail paused automatically: marketing hard bounce rate 14.0% (critical at 10.0%) over 500 sends in the last 7 days. Transactional mail keeps flowing. Clean the contact list, then an OWNER can resume marketing mail.';

describe('Dashboard: reputation per stream, and resuming paused marketing mail', BROWSER_PASS, () => {
  let server: TestServer;
  let page: Page;
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer({ AUTO_DISABLE: 'true' });
  });
  after(async () => {
    await page?.context().close();
    await server?.close();
  });

  test('the rates of both streams, the pause with its reason, and “Resume marketing mail”', async () => {
    const project = await createProject(server.url);
    // The state AUTO_DISABLE leaves after a campaign bounced (test/admin/stream-reputation.test.ts drives it end to end).
    assert.ok(await pauseMarketing(server.deps.db, project.id, REASON));
    page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/settings`);
      const alert = page.getByRole('alert').filter({ hasText: 'Marketing mail is paused' });
      await alert.getByText(REASON, { exact: false }).waitFor();
      const rates = page.getByRole('table', { name: 'Rates and thresholds' });
      for (const measure of ['Bounce rate, marketing mail', 'Complaint rate, marketing mail', 'Bounce rate, transactional mail', 'Complaint rate, transactional mail']) {
        await rates.getByRole('rowheader', { name: measure }).waitFor();
      }
      await assertAccessible(page, 'settings with marketing mail paused');
      await alert.getByRole('button', { name: 'Resume marketing mail' }).click();
      await alert.waitFor({ state: 'detached' });
      const state = await client(server.url).get(`/projects/${project.id}/security`, { cookie: project.owner.cookie });
      assert.equal(state.body.marketingPaused, false);
    } catch (error) {
      throw await withPageState(page, error);
    }
  });
});
