import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type Account, createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

// The suppression list page and the tracking settings (docs/decisions/suppressions.md, docs/decisions/sending.md).
describe('Dashboard: an owner keeps the suppression list and sets tracking; a member adds but may not remove', BROWSER_PASS, () => {
  let server: TestServer;
  let project: TestProject;
  let colleague: Account;
  let page: Page;
  const reader = 'ana.souza@leitura.example';
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url, { name: 'Fjord Coffee' });
    colleague = await createAccount(server.url, uniqueEmail('ingrid'));
    assert.equal((await project.dashboard.post(`/projects/${project.id}/members`, { email: colleague.email, role: 'MEMBER' })).status, 201);
    // What a project has after a few months: a bounce and a complaint imported from the old provider, one added by hand.
    for (const [email, reason] of [
      ['gone.kenji@onsen.example', 'HARD_BOUNCE'],
      ['angry.sigrid@fjord.example', 'COMPLAINT'],
      ['old.list@fjord.example', 'MANUAL'],
    ]) {
      assert.equal((await project.api.post('/suppressions', { email, reason })).status, 201);
    }
    const tracked = await project.publicApi.post('/v1/track', { email: reader, event: 'newsletter.signup', data: { city: 'São Paulo', 趣味: '読書' } });
    assert.equal(tracked.status, 200, tracked.text);
    page = await pageAs(ui.browser, server.url, project.owner);
  });
  after(async () => {
    await page?.context().close();
    await server?.close();
  });

  /** Runs a step; a failure carries what the page showed. */
  const step = (name: string, body: () => Promise<void>) =>
    test(name, async () => {
      try {
        await body();
      } catch (error) {
        throw await withPageState(page, error);
      }
    });

  async function listed(project: TestProject, search = '') {
    const res = await project.api.get(`/suppressions?search=${encodeURIComponent(search)}`);
    assert.equal(res.status, 200, res.text);
    return (res.body.data as { email: string; reason: string }[]).map((s) => `${s.email} ${s.reason}`).sort();
  }

  const table = () => page.getByRole('table', { name: 'Suppressed addresses' });
  const form = () => page.getByRole('form', { name: 'Suppress an address' });
  step('the list, reached from the navigation', async () => {
    await page.goto(`/p/${project.id}`);
    await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Suppressions' }).click();
    await page.getByRole('heading', { name: 'Suppression list' }).waitFor();
    await page.getByText('3 addresses suppressed.').waitFor();
    for (const [email, reason] of [
      ['gone.kenji@onsen.example', 'Hard bounce'],
      ['angry.sigrid@fjord.example', 'Spam complaint'],
      ['old.list@fjord.example', 'Added by hand'],
    ]) {
      await table()
        .getByRole('row', { name: new RegExp(email.replaceAll('.', '\\.')) })
        .getByText(reason)
        .waitFor();
    }
    await assertAccessible(page, 'the suppression list');
  });

  step('a malformed address is refused in plain words at its field', async () => {
    await form()
      .getByRole('textbox', { name: /^Address/ })
      .fill('ana.souza at leitura');
    await form().getByRole('button', { name: 'Suppress address' }).click();
    await form().getByText('Enter an email address like name@example.com').waitFor();
  });

  step('adding an address unsubscribes its contact; adding it again keeps the first entry', async () => {
    await form()
      .getByRole('textbox', { name: /^Address/ })
      .fill(` ${reader.toUpperCase()} `);
    await form().getByRole('button', { name: 'Suppress address' }).click();
    await page.getByRole('status').getByText(`${reader} is suppressed.`).waitFor();
    await table().getByText(reader).waitFor();
    await page.getByText('4 addresses suppressed.').waitFor();
    const contact = (await project.api.get(`/contacts?search=${encodeURIComponent(reader)}`)).body.data[0];
    assert.equal(contact.subscribed, false, 'the contact is unsubscribed');
    await form()
      .getByRole('textbox', { name: /^Address/ })
      .fill('gone.kenji@onsen.example');
    await form()
      .getByRole('combobox', { name: /^Reason/ })
      .selectOption('MANUAL');
    await form().getByRole('button', { name: 'Suppress address' }).click();
    await page
      .getByRole('status')
      .getByText(/gone\.kenji@onsen\.example was already on the list \(hard bounce, since .+\); its entry is kept\./)
      .waitFor();
    assert.ok((await listed(project)).includes('gone.kenji@onsen.example HARD_BOUNCE'));
  });

  step('search narrows the list to matching addresses', async () => {
    await page.getByRole('searchbox', { name: 'Search addresses' }).fill('FJORD');
    await page.getByText('2 addresses match.').waitFor();
    assert.equal(await table().locator('tbody tr').count(), 2);
    await table().getByText('angry.sigrid@fjord.example').waitFor();
    await page.getByRole('searchbox', { name: 'Search addresses' }).fill('nobody-here');
    await page.getByText('No address matches').waitFor();
    await page.getByRole('searchbox', { name: 'Search addresses' }).fill('');
    await page.getByText('4 addresses suppressed.').waitFor();
    await screenshot(page, 'suppressions');
    await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/suppressions`, 'suppressions', (p: Page) =>
      p.getByRole('table', { name: 'Suppressed addresses' }).getByText(reader).waitFor(),
    );
  });

  step('removing asks first, says what follows, and takes the address off the list', async () => {
    const remove = table().getByRole('button', { name: 'Remove angry.sigrid@fjord.example' });
    // Under the pointer its label must still be readable (the pointer stays there while the dialog opens).
    await remove.hover();
    // Its colour change may be animated: the end of the transition, or half a second.
    await remove.evaluate(
      (button) =>
        new Promise<void>((resolve) => {
          button.addEventListener('transitionend', () => resolve(), { once: true });
          setTimeout(resolve, 500);
        }),
    );
    await assertAccessible(page, 'a Remove button under the pointer');
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Remove angry.sigrid@fjord.example from the list?' });
    await dialog.getByText(/listed for a spam complaint: mailing it again can hurt your sending reputation/).waitFor();
    await assertAccessible(page, 'the removal dialog');
    await dialog.getByRole('button', { name: 'Remove from list' }).click();
    await dialog.waitFor({ state: 'detached' });
    await table().getByText('angry.sigrid@fjord.example').waitFor({ state: 'detached' });
    await page.getByText('3 addresses suppressed.').waitFor();
    assert.deepEqual(await listed(project, 'sigrid'), []);
  });

  step('tracking: opens on all mail, clicks off', async () => {
    await page.goto(`/p/${project.id}/settings`);
    const tracking = page.getByRole('form', { name: 'Open and click tracking' });
    const opens = tracking.getByRole('radiogroup', { name: /^Opens/ });
    const clicks = tracking.getByRole('radiogroup', { name: /^Clicks/ });
    // The defaults (docs/decisions/sending.md): opens on marketing mail only, clicks on all mail.
    assert.ok(await opens.getByRole('radio', { name: /^Marketing mail only/ }).isChecked());
    assert.ok(await clicks.getByRole('radio', { name: 'All mail' }).isChecked());
    assert.ok(await tracking.getByRole('button', { name: 'Save tracking' }).isDisabled(), 'nothing to save yet');
    await opens.getByRole('radio', { name: 'All mail' }).check();
    await clicks.getByRole('radio', { name: 'Off' }).check();
    await tracking.getByRole('button', { name: 'Save tracking' }).click();
    await tracking.getByText('Tracking saved. It applies to mail sent from now on.').waitFor();
    const mine = (await project.dashboard.get('/users/@me/projects')).body.data.find((p: { id: string }) => p.id === project.id);
    assert.deepEqual(mine.tracking, { opens: 'all', clicks: 'off' });
    await page.reload();
    assert.ok(
      await page
        .getByRole('radiogroup', { name: /^Clicks/ })
        .getByRole('radio', { name: 'Off' })
        .isChecked(),
    );
    await assertAccessible(page, 'settings with tracking');
  });
  test('a member adds an address but may not remove one or change tracking', async () => {
    const memberPage = await pageAs(ui.browser, server.url, colleague);
    try {
      await memberPage.goto(`/p/${project.id}/suppressions`);
      const table = memberPage.getByRole('table', { name: 'Suppressed addresses' });
      await table.getByText(reader).waitFor();
      await memberPage.getByText('Only an owner or admin removes one', { exact: false }).waitFor();
      assert.ok(await table.getByRole('button', { name: `Remove ${reader}` }).isDisabled(), 'a MEMBER may not remove');
      const form = memberPage.getByRole('form', { name: 'Suppress an address' });
      await form.getByRole('textbox', { name: /^Address/ }).fill('returned.mail@posta.example');
      await form.getByRole('button', { name: 'Suppress address' }).click();
      await memberPage.getByRole('status').getByText('returned.mail@posta.example is suppressed.').waitFor();
      assert.ok((await listed(project)).includes('returned.mail@posta.example MANUAL'));
      await assertAccessible(memberPage, 'the suppression list seen by a member');

      await memberPage.goto(`/p/${project.id}/settings`);
      await memberPage.getByText('Only an owner or admin can change tracking.').waitFor();
      assert.ok(await memberPage.getByRole('radio', { name: 'Off' }).first().isDisabled());
    } catch (error) {
      throw await withPageState(memberPage, error);
    } finally {
      await memberPage.context().close();
    }
  });
});
