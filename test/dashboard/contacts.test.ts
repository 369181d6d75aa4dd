import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

const FIRST_NAMES = ['Åsa', 'Björn', 'Chloé', 'Dmitri', 'Émile', 'Fatima', 'Gökhan', 'Hana', 'Ingrid', 'Jun', '李', 'Zoë'];

describe('Dashboard: contacts, contact page, bulk actions, CSV import and custom fields', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  /** 60 contacts, every third unsubscribed, with names in several scripts. */
  async function seed(project: TestProject) {
    const emails: string[] = [];
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const i = batch * 10 + j;
          const email = `member${String(i).padStart(2, '0')}@fjord.example`;
          emails.push(email);
          const created = await project.api.post('/contacts', {
            email,
            subscribed: i % 3 !== 0,
            data: { firstName: FIRST_NAMES[i % FIRST_NAMES.length], plan: i % 2 ? 'pro' : 'free', seats: i },
          });
          assert.equal(created.status, 201, created.text);
        }),
      );
    }
    return emails.sort();
  }

  const rowEmails = (page: Page) => page.getByRole('table', { name: 'Contacts' }).locator('tbody tr a').allInnerTexts();

  test('the table searches, filters, sorts and pages; bulk unsubscribe and delete run as jobs with progress', async () => {
    const project = await createProject(server.url);
    const emails = await seed(project);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/contacts`);
      await page.getByText('60 contacts match.').waitFor();
      assert.equal((await rowEmails(page)).length, 50);
      await assertAccessible(page, 'contacts');
      await screenshot(page, 'contacts');

      // Sort by email ascending, then page through with the cursor.
      await page.getByRole('button', { name: 'Email' }).click();
      await page.getByRole('columnheader', { name: /Email/ }).and(page.locator('[aria-sort="ascending"]')).waitFor();
      await page.waitForFunction((first) => (globalThis as any).document.querySelector('table[aria-label="Contacts"] tbody tr a')?.textContent === first, emails[0]);
      assert.deepEqual(await rowEmails(page), emails.slice(0, 50));
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table[aria-label="Contacts"] tbody tr').length === 10);
      assert.deepEqual(await rowEmails(page), emails.slice(50));
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Page 1').waitFor();

      // Search and the subscribed filter go to the server.
      await page.getByRole('searchbox', { name: 'Search by email' }).fill('member1');
      await page.getByText('10 contacts match.').waitFor();
      await page.getByText('Unsubscribed', { exact: true }).first().click();
      // member10…member19, every third unsubscribed: 12, 15, 18.
      await page.getByText('3 contacts match.').waitFor();
      assert.deepEqual(await rowEmails(page), ['member12@fjord.example', 'member15@fjord.example', 'member18@fjord.example']);

      await page.getByText('All', { exact: true }).click();
      await page.getByText('10 contacts match.').waitFor();
      for (const email of ['member10@fjord.example', 'member11@fjord.example', 'member13@fjord.example']) await page.getByRole('checkbox', { name: `Select ${email}` }).check();
      const bulk = page.getByRole('region', { name: 'Bulk actions' });
      await bulk.getByText('3 selected').waitFor();
      await bulk.getByRole('button', { name: 'Unsubscribe' }).click();
      await bulk.getByText('Unsubscribe contacts: done').waitFor();
      await bulk.getByText('3 of 3 processed').waitFor();
      const after = await project.api.get('/contacts?search=member1&subscribed=false&limit=100');
      assert.deepEqual(after.body.data.map((c: { email: string }) => c.email).sort(), [
        'member10@fjord.example',
        'member11@fjord.example',
        'member12@fjord.example',
        'member13@fjord.example',
        'member15@fjord.example',
        'member18@fjord.example',
      ]);

      await page.getByRole('checkbox', { name: 'Select member19@fjord.example' }).check();
      await page.getByRole('checkbox', { name: 'Select member17@fjord.example' }).check();
      await bulk.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete 2 contacts?' }).getByRole('button', { name: 'Delete contacts' }).click();
      await bulk.getByText('Delete contacts: done').waitFor();
      await page.getByText('8 contacts match.').waitFor();
      assert.equal((await project.api.get('/contacts?search=member19')).body.total, 0);

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/contacts`, 'contacts', (p) => p.getByText('58 contacts match.').waitFor());
    } finally {
      await page.context().close();
    }
  });

  test('the contact page edits data keys and the subscription, and shows its events', async () => {
    const project = await createProject(server.url);
    const tracked = await project.publicApi.post('/v1/track', { email: 'ingrid@fjord.example', event: 'order-placed', data: { plan: 'free', city: 'Tromsø' } });
    assert.equal(tracked.status, 200, tracked.text);
    const contactId = tracked.body.data.contact;
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/contacts`);
      await page.getByRole('link', { name: 'ingrid@fjord.example' }).click();
      await page.getByRole('heading', { name: 'ingrid@fjord.example' }).waitFor();
      const timeline = page.getByLabel('Events, newest first');
      await timeline.getByText('order-placed').waitFor();
      await assertAccessible(page, 'contact');
      await screenshot(page, 'contact');

      await page.getByRole('button', { name: 'Edit plan' }).click();
      await page.getByRole('textbox', { name: 'Value of plan' }).fill('enterprise');
      await page.getByRole('button', { name: 'Save plan' }).click();
      await page.getByRole('table', { name: 'Contact data' }).getByText('enterprise').waitFor();

      await page.getByRole('textbox', { name: 'New key' }).fill('seats');
      await page
        .getByRole('textbox', { name: /^Value/ })
        .last()
        .fill('12');
      await page.getByRole('button', { name: 'Add key' }).click();
      await page.getByRole('button', { name: 'Edit seats' }).waitFor();
      await page.getByRole('button', { name: 'Delete city' }).click();
      await page.getByRole('button', { name: 'Delete city' }).waitFor({ state: 'detached' });

      const subscription = page.getByRole('switch', { name: 'Subscribed to marketing email' });
      const wasSubscribed = await subscription.isChecked();
      await subscription.click({ force: true });
      await page.waitForFunction((expected) => (globalThis as any).document.querySelector('input[role="switch"]')?.checked === expected, !wasSubscribed);

      const contact = await project.api.get(`/contacts/${contactId}`);
      assert.deepEqual(contact.body.data, { plan: 'enterprise', seats: 12 });
      assert.equal(contact.body.subscribed, !wasSubscribed);

      // A conflicting address is refused next to the field.
      await project.api.post('/contacts', { email: 'taken@fjord.example' });
      await page.getByRole('textbox', { name: 'Email address' }).fill('taken@fjord.example');
      await page.getByRole('button', { name: 'Save address' }).click();
      await page.getByRole('alert').first().waitFor();
      assert.equal((await project.api.get(`/contacts/${contactId}`)).body.email, 'ingrid@fjord.example');
    } finally {
      await page.context().close();
    }
  });

  test("the contact page lists the contact's emails newest first, a page at a time, each leading to its email page", async () => {
    const project = await createProject(server.url);
    const from = `billing@${(await verifiedDomain(project, dns)).domain}`;
    const subjects = Array.from({ length: 23 }, (_, i) => [`Invoice ${i + 1} for your Fjord Coffee subscription`, `Счёт № ${i + 1}`, `請求書 ${i + 1}`][i % 3]!);
    const ids: string[] = [];
    for (const subject of subjects) {
      const sent = await project.api.post('/v1/send', { to: 'sigrun@fjord.example', from, subject, body: `<p>${subject}</p><p>Thank you for staying with us.</p>` });
      assert.equal(sent.status, 200, sent.text);
      ids.push(sent.body.data.emails[0].email);
    }
    await project.api.post('/v1/send', { to: 'someone-else@fjord.example', from, subject: 'Not for Sigrún', body: '<p>x</p>' });
    const contactId = (await project.api.get('/contacts?search=sigrun')).body.data[0].id;
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/contacts/${contactId}`);
      await page.getByRole('heading', { name: 'Emails (23)' }).waitFor();
      const table = page.getByRole('table', { name: 'Emails to this contact' });
      const subjectsShown = () => table.locator('tbody tr a').allInnerTexts();
      // Newest first, 20 to a page.
      assert.deepEqual(await subjectsShown(), [...subjects].reverse().slice(0, 20));
      await assertAccessible(page, 'contact with emails');
      await screenshot(page, 'contact-emails');
      await page.getByRole('button', { name: 'Load older emails' }).click();
      await page.getByRole('button', { name: 'Load older emails' }).waitFor({ state: 'detached' });
      assert.deepEqual(await subjectsShown(), [...subjects].reverse());
      assert.ok(!(await subjectsShown()).includes('Not for Sigrún'));
      // Each row: its status, and a link to its email page.
      const first = table.getByRole('row').filter({ hasText: subjects[0]! });
      await first.getByText(/^(QUEUED|SENDING|SENT|DELIVERED)$/).waitFor();
      await first.getByRole('link', { name: subjects[0]! }).click();
      await page.getByRole('heading', { name: subjects[0]! }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/p/${project.id}/emails/${ids[0]}`);
      await page.frameLocator('iframe[title="The message as HTML"]').getByText('Thank you for staying with us.').waitFor();

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/contacts/${contactId}`, 'contact-emails', (p) =>
        p.getByRole('heading', { name: 'Emails (23)' }).waitFor(),
      );
    } finally {
      await page.context().close();
    }
  });

  test('a CSV import previews its columns, shows progress and its result; the fields page shows the new field and deletes it', async () => {
    const project = await createProject(server.url);
    const page = await pageAs(ui.browser, server.url, project.owner);
    const rows = ['email,subscribed,first_name,city,notes'];
    for (let i = 0; i < 40; i++)
      rows.push(
        `guest${i}@onsen.example,${i % 4 !== 0},${['山田', 'Ольга', 'Søren', 'Nguyễn'][i % 4]},${['京都', 'Москва', 'Århus', 'Hà Nội'][i % 4]},"Line one, with a comma; ""quoted"""`,
      );
    rows.push('not-an-email,true,Broken,Nowhere,');
    try {
      await page.goto(`/p/${project.id}/contacts/import`);
      await page.getByRole('heading', { name: 'Import contacts' }).waitFor();
      await page.locator('input[type=file]').setInputFiles({ name: 'guests.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
      const preview = page.getByRole('table', { name: 'Column preview' });
      await preview.getByText('data.first_name').waitFor();
      await preview.getByText('Email address').waitFor();
      await preview.getByText('山田').waitFor();
      await assertAccessible(page, 'import preview');
      await page.getByRole('button', { name: 'Import guests.csv' }).click();
      await page.getByText('Import: done').waitFor({ timeout: 60_000 });
      await page.getByText('41 of 41 processed · 40 succeeded · 1 failed').waitFor();
      await page.getByText(/Row 42:/).waitFor();
      await screenshot(page, 'import');
      const imported = await project.api.get('/contacts?search=guest1@onsen');
      assert.equal(imported.body.data[0].data.city, 'Москва');

      await page.getByRole('link', { name: 'See the contacts' }).click();
      await page.getByRole('link', { name: 'Custom fields' }).click();
      const fields = page.getByRole('table', { name: 'Contact fields' });
      await fields.getByText('data.city').waitFor();
      await page.getByRole('button', { name: 'Values and usage of city' }).click();
      await page.getByText(/Values:.*京都/).waitFor();
      await page.getByText('Used by: nothing').waitFor();
      await assertAccessible(page, 'fields');
      await page.getByRole('button', { name: 'Delete notes' }).click();
      await page.getByRole('dialog', { name: 'Delete the field notes?' }).getByRole('button', { name: 'Delete field' }).click();
      await fields.getByText('data.notes').waitFor({ state: 'detached' });
      assert.equal((await project.api.get('/contacts?search=guest1@onsen')).body.data[0].data.notes, undefined);
    } finally {
      await page.context().close();
    }
  });
});
