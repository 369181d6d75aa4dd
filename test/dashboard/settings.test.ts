import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount, createProject, uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('Dashboard: project settings', BROWSER_PASS, () => {
  let server: TestServer;
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test('an owner renames the project, manages members and limits, reads rates and the audit log, resets and deletes it; a member sees what it may not do', async () => {
    const project = await createProject(server.url, { name: 'Fjord Coffee' });
    const colleague = await createAccount(server.url, uniqueEmail('ingrid'));
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/settings`);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await page.getByText('Nothing recorded yet').waitFor();
      await page.getByRole('table', { name: 'Rates and thresholds' }).waitFor();
      await assertAccessible(page, 'settings of a new project');

      // Rename: the project switcher follows.
      await page.getByRole('textbox', { name: /^Project name/ }).fill('Fjord Coffee — 北欧 Roasters');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('Saved.').waitFor();
      assert.equal(await page.getByRole('combobox', { name: 'Project' }).inputValue(), 'Fjord Coffee — 北欧 Roasters');

      // Members: an address with no account is sent an invitation; a known one is added as ADMIN, then made MEMBER.
      const members = page.getByRole('form', { name: 'Add a member' });
      const newcomer = uniqueEmail('nobody');
      await members.getByRole('textbox', { name: /^Email/ }).fill(newcomer);
      await members.getByRole('button', { name: 'Add member' }).click();
      await page.getByRole('status').getByText(`${newcomer} has no account yet: an invitation is on its way.`, { exact: false }).waitFor();
      await members.getByRole('textbox', { name: /^Email/ }).fill(colleague.email);
      await members.getByRole('combobox', { name: /^Role/ }).selectOption('ADMIN');
      await members.getByRole('button', { name: 'Add member' }).click();
      const roleOfColleague = page.getByRole('combobox', { name: `Role of ${colleague.email}` });
      await roleOfColleague.waitFor();
      assert.equal(await roleOfColleague.inputValue(), 'ADMIN');
      await roleOfColleague.selectOption('MEMBER');
      await page.waitForFunction(
        async ([id, email]) => {
          const res = await fetch(`/projects/${id}/members`, { headers: { 'x-project-id': id! } });
          const body = (await res.json()) as { data: { email: string; role: string }[] };
          return body.data.some((m) => m.email === email && m.role === 'MEMBER');
        },
        [project.id, colleague.email],
      );
      // The last owner cannot be demoted: the refusal shows on that member's row.
      await page.getByRole('combobox', { name: `Role of ${project.owner.email}` }).selectOption('ADMIN');
      await page.getByText('The last OWNER of a project cannot be demoted.').waitFor();

      // Billing: a transactional cap of 1,000 a month, shown against this month's consumption.
      const limits = page.getByRole('form', { name: 'Set monthly limits' });
      await limits.getByRole('textbox', { name: /^Transactional per month/ }).fill('1000');
      await limits.getByRole('button', { name: 'Save limits' }).click();
      await page.getByText('Limits saved.').waitFor();
      await page.getByText('0 of 1,000').waitFor();
      assert.equal((await project.dashboard.get(`/users/@me/projects/${project.id}/billing-limits`)).body.transactional, 1000);

      // Reputation: no sends yet, thresholds as the service applies them.
      const rates = page.getByRole('table', { name: 'Rates and thresholds' });
      await rates.getByText('Too few sends').first().waitFor();
      // The project's rates, then each stream's (docs/decisions/reputation.md), against the same thresholds.
      for (const threshold of ['5 %', '10 %', '0.1 %', '0.3 %']) {
        await rates.getByText(threshold, { exact: true }).first().waitFor();
        assert.equal(await rates.getByText(threshold, { exact: true }).count(), 3, threshold);
      }
      await rates.getByRole('rowheader', { name: 'Bounce rate, marketing mail' }).waitFor();

      // The audit log lists each change, and filters by action.
      await page.reload();
      const audit = page.getByRole('table', { name: 'Audit log' });
      for (const action of ['Project renamed', 'Member invited', 'Member added', 'Role changed', 'Billing limits changed'])
        await audit.getByText(action, { exact: true }).waitFor();
      await page.getByRole('combobox', { name: 'Action' }).selectOption('member.added');
      await audit.getByText('Project renamed').waitFor({ state: 'detached' });
      assert.equal(await audit.locator('tbody tr').count(), 1);
      await audit.getByText(colleague.email).first().waitFor();
      await assertAccessible(page, 'settings with members, limits and the audit log');
      await screenshot(page, 'settings');
      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/settings`, 'settings', (p: Page) => p.getByRole('table', { name: 'Audit log' }).waitFor());

      // The colleague, now a MEMBER, sees everything it may not change.
      const memberPage = await pageAs(ui.browser, server.url, colleague);
      try {
        await memberPage.goto(`/p/${project.id}/settings`);
        await memberPage.getByText('Only an owner or admin can read the audit log.').waitFor();
        await memberPage.getByText('Your role (MEMBER) can see the members.', { exact: false }).waitFor();
        for (const name of ['Save name', 'Add member', 'Save limits', 'Reset project', 'Delete project']) {
          assert.ok(await memberPage.getByRole('button', { name }).isDisabled(), `${name} is disabled for a MEMBER`);
        }
        assert.ok(await memberPage.getByRole('combobox', { name: `Role of ${project.owner.email}` }).isDisabled());
        assert.ok(await memberPage.getByRole('button', { name: 'Leave' }).isEnabled(), 'a member may leave');
        await assertAccessible(memberPage, 'settings seen by a member');
      } finally {
        await memberPage.context().close();
      }

      // Removing a member asks first.
      await page
        .getByRole('row', { name: new RegExp(colleague.email.replaceAll('.', '\\.')) })
        .getByRole('button', { name: 'Remove' })
        .click();
      await page
        .getByRole('dialog', { name: `Remove ${colleague.email}?` })
        .getByRole('button', { name: 'Remove member' })
        .click();
      await page.getByRole('combobox', { name: `Role of ${colleague.email}` }).waitFor({ state: 'detached' });

      // Reset wipes the data once the exact name is typed; the project and its keys stay.
      await project.publicApi.post('/v1/track', { email: uniqueEmail('customer'), event: 'order.placed', data: { total: 42 } });
      assert.equal((await project.api.get('/contacts')).body.data.length, 1);
      await page.getByRole('button', { name: 'Reset project' }).click();
      const reset = page.getByRole('dialog', { name: 'Reset Fjord Coffee — 北欧 Roasters?' });
      const resetButton = reset.getByRole('button', { name: 'Reset project' });
      await reset.getByRole('textbox', { name: 'Type Fjord Coffee — 北欧 Roasters to confirm' }).fill('Fjord Coffee');
      assert.ok(await resetButton.isDisabled(), 'a wrong name does not confirm');
      await reset.getByRole('textbox', { name: 'Type Fjord Coffee — 北欧 Roasters to confirm' }).fill('Fjord Coffee — 北欧 Roasters');
      await resetButton.click();
      await reset.getByText("The project's data is deleted.").waitFor();
      await assertAccessible(page, 'project reset');
      assert.equal((await project.api.get('/contacts')).body.data.length, 0);
      await reset.getByRole('button', { name: 'Close' }).click();

      // Delete: the project is gone and the app goes to "new project".
      await page.getByRole('button', { name: 'Delete project' }).click();
      const del = page.getByRole('dialog', { name: 'Delete Fjord Coffee — 北欧 Roasters?' });
      await del.getByRole('textbox', { name: /to confirm$/ }).fill('Fjord Coffee — 北欧 Roasters');
      await del.getByRole('button', { name: 'Delete project' }).click();
      await page.getByRole('heading', { name: 'New project' }).waitFor();
      assert.equal((await project.api.get('/contacts')).status, 401);
    } finally {
      await page.context().close();
    }
  });
});
