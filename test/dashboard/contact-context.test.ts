import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable } from '../kit/workflows.ts';

const PEOPLE = [
  { email: 'ingrid.berg@fjord.example', data: { firstName: 'Ingrid', city: 'Tromsø', plan: 'pro' } },
  { email: 'kenji.sato@onsen.example', data: { firstName: '健二', city: '京都', plan: 'pro' } },
  { email: 'olga.ivanova@sever.example', data: { firstName: 'Ольга', city: 'Москва', plan: 'free' } },
  { email: 'ana.souza@leitura.example', data: { firstName: 'Ana', city: 'São Paulo', plan: 'free' } },
];

const rowEmails = (page: Page) => page.getByRole('table', { name: 'Contacts' }).locator('tbody tr a').allTextContents();

describe('Dashboard: a marketer adds a contact by hand, picks data columns, filters by segment, and reads a contact in context', BROWSER_PASS, () => {
  let server: TestServer;
  let project: TestProject;
  let page: Page;
  let vipSegment = '';
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
    for (const person of PEOPLE) assert.equal((await project.api.post('/contacts', person)).status, 201);
    const vip = await project.api.post('/segments', { name: 'VIP — 贵宾', type: 'STATIC' });
    vipSegment = vip.body.id;
    assert.equal((await project.api.post(`/segments/${vipSegment}/members`, { emails: ['kenji.sato@onsen.example', 'ana.souza@leitura.example'] })).body.added, 2);
    const tromso = await project.api.post('/segments', {
      name: 'Readers in Tromsø',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'Tromsø' }] }] },
    });
    assert.equal(tromso.status, 201, tromso.text);
    const onboarding = await buildWorkflow(project.api, { name: 'Onboarding — 入門', eventName: 'trial.started' }, [{ type: 'DELAY', config: { amount: 3, unit: 'days' } }]);
    await enable(project.api, onboarding.id);
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

  step('add a contact by hand with data fields; a malformed address is refused at its field', async () => {
    await page.goto(`/p/${project.id}/contacts`);
    await page.getByText('4 contacts match.').waitFor();
    await page.getByRole('button', { name: 'Add contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a contact' });
    await dialog.getByRole('textbox', { name: /^Email address/ }).fill('chloé at paris');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await dialog.getByText('Enter an email address like name@example.com').waitFor();
    await dialog.getByRole('textbox', { name: /^Email address/ }).fill('chloe.martin@paris.example');
    await dialog.getByLabel('Field 1', { exact: true }).fill('firstName');
    await dialog.getByRole('textbox', { name: 'Value of field 1' }).fill('Chloé');
    await dialog.getByRole('button', { name: 'Add a field' }).click();
    await dialog.getByLabel('Field 2', { exact: true }).fill('city');
    await dialog.getByRole('textbox', { name: 'Value of field 2' }).fill('Tromsø');
    await dialog.getByRole('button', { name: 'Add a field' }).click();
    await dialog.getByLabel('Field 3', { exact: true }).fill('seats');
    await dialog.getByRole('textbox', { name: 'Value of field 3' }).fill('12');
    await assertAccessible(page, 'the add-contact dialog');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await page.getByRole('heading', { name: 'chloe.martin@paris.example' }).waitFor();
    await page.getByRole('status').getByText('Contact added.').waitFor();
    const found = (await project.api.get('/contacts?search=chloe.martin')).body.data[0];
    assert.deepEqual(found.data, { firstName: 'Chloé', city: 'Tromsø', seats: 12 });
    assert.equal(found.subscribed, true);
    // Her city puts her in the dynamic segment at once.
    await page.getByRole('list', { name: 'Segments of this contact' }).getByRole('link', { name: 'Readers in Tromsø' }).waitFor();
  });

  step('the table shows the chosen data columns, remembered on the next visit', async () => {
    await page.goto(`/p/${project.id}/contacts`);
    const table = page.getByRole('table', { name: 'Contacts' });
    // Name-like keys are shown until a choice is made.
    await table.getByRole('columnheader', { name: 'firstName' }).waitFor();
    await table.getByText('Ольга').waitFor();
    await page.getByRole('combobox', { name: 'Data columns' }).click();
    await page.getByRole('option', { name: 'city' }).click();
    await page.keyboard.press('Escape');
    await table.getByRole('columnheader', { name: 'city' }).waitFor();
    await table
      .getByRole('row', { name: /kenji\.sato/ })
      .getByText('京都')
      .waitFor();
    await page.reload();
    await page.getByRole('table', { name: 'Contacts' }).getByRole('columnheader', { name: 'city' }).waitFor();
    await assertAccessible(page, 'contacts with data columns');
  });

  step('filtering by a segment with the builder narrows the table and the count', async () => {
    await page.getByRole('button', { name: 'Filter by data, events or segments' }).click();
    await page.getByRole('combobox', { name: 'Field of filter 1 in group 1', exact: true }).selectOption(`segment.${vipSegment}`);
    await page.getByTestId('filter-count').filter({ hasText: '2 contacts match the filter' }).waitFor();
    await page.getByText('2 contacts match.').waitFor();
    assert.deepEqual((await rowEmails(page)).sort(), ['ana.souza@leitura.example', 'kenji.sato@onsen.example']);
    await page.getByRole('combobox', { name: 'Condition of filter 1 in group 1', exact: true }).selectOption('notMemberOfSegment');
    await page.getByText('3 contacts match.').waitFor();
    assert.deepEqual((await rowEmails(page)).sort(), ['chloe.martin@paris.example', 'ingrid.berg@fjord.example', 'olga.ivanova@sever.example']);
    await assertAccessible(page, 'contacts filtered by a segment');
    await screenshot(page, 'contacts-filtered');
    await page.getByRole('button', { name: 'Remove the filter' }).click();
    await page.getByText('5 contacts match.').waitFor();
  });

  step("the contact page lists the contact's segments and workflows, and its events as readable fields", async () => {
    const tracked = await project.publicApi.post('/v1/track', {
      email: 'kenji.sato@onsen.example',
      event: 'trial.started',
      data: { source: 'pricing page', seats: 4, trialPlan: 'チーム' },
    });
    assert.equal(tracked.status, 200, tracked.text);
    await page.goto(`/p/${project.id}/contacts/${tracked.body.data.contact}`);
    await page.getByRole('list', { name: 'Segments of this contact' }).getByRole('link', { name: 'VIP — 贵宾' }).waitFor();
    const executions = page.getByRole('table', { name: 'Workflow executions of this contact' });
    const row = executions.getByRole('row', { name: /Onboarding — 入門/ });
    await row.getByText(/Waiting|Running/).waitFor();
    const timeline = page.getByLabel('Events, newest first');
    await timeline.getByText('trial.started').waitFor();
    for (const text of ['source', 'pricing page', 'trialPlan', 'チーム']) await timeline.getByText(text, { exact: true }).waitFor();
    assert.equal(await timeline.getByText('{"source"').count(), 0, 'no raw JSON');
    await assertAccessible(page, 'a contact with segments, workflows and events');
    await screenshot(page, 'contact-context');
  });
});
