import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const SUBJECT = 'Ваш заказ {{ order }} в пути, {{ first_name ?? "friend" }}';
const BODY = [
  '<h1>Thank you, {{ first_name ?? "friend" }}!</h1>',
  '<p>Your order {{ order }} left our warehouse in Rotterdam this morning. The carrier expects to reach {{ city }} within two working days, and we will write again as soon as it is out for delivery so that someone can be at home.</p>',
  '<p>ご注文の商品は発送されました。 Ваш заказ уже в пути.</p>',
  '<table><caption>Your parcel</caption><tr><th scope="row">Carrier</th><td>PostNL</td></tr><tr><th scope="row">Parcels</th><td>{{ parcels }}</td></tr></table>',
  '<p>Questions? Reply to this message.</p>',
].join('\n');
const BROKEN = BODY.replace('<p>ご注文', '{% if vip %}<p>ご注文');

/** The CodeMirror body: its content element is the textbox named by the field's label. */
const bodyEditor = (page: Page) => page.getByRole('textbox', { name: 'Body (HTML and Liquid)' });

/**
 * The text the preview frame shows, once it matches. Read from the page: Playwright's frame
 * locators wait with requestAnimationFrame, which a frame where scripts are off never runs.
 */
async function previewText(page: Page, pattern: RegExp): Promise<string> {
  const read = () => page.evaluate(() => ((globalThis as any).document.querySelector('iframe[title="Rendered email"]')?.contentDocument?.body?.innerText ?? '') as string);
  const deadline = Date.now() + 30_000;
  let text = await read();
  while (!pattern.test(text)) {
    if (Date.now() > deadline) assert.fail(`the preview never showed ${pattern}; it shows: ${text}`);
    await page.waitForTimeout(100);
    text = await read();
  }
  return text;
}

/** The number of elements of the preview that match a CSS selector and whose text is `text`. */
const countInPreview = (page: Page, selector: string, text: string) =>
  page.evaluate(
    ([selector, text]) =>
      [...((globalThis as any).document.querySelector('iframe[title="Rendered email"]').contentDocument.querySelectorAll(selector) as any[])].filter((e) => e.textContent === text)
        .length,
    [selector, text],
  );

async function setBody(page: Page, source: string) {
  const editor = bodyEditor(page);
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await editor.fill(source);
}

describe('Dashboard: templates', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  test('create a template, preview it as a contact, see a syntax error at its line, send a test that is DELIVERED', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const contact = await project.api.post('/contacts', { email: 'ksenia@fjord.example', data: { first_name: 'Ксения', order: 'A-1042', city: 'Kyōto', parcels: 2 } });
    assert.equal(contact.status, 201, contact.text);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/templates`);
      await page.getByText('No template yet').waitFor();
      await assertAccessible(page, 'templates, empty');

      await page.getByRole('link', { name: 'New template' }).click();
      await page.getByRole('heading', { name: 'New template' }).waitFor();
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Order shipped');
      await page.getByRole('textbox', { name: 'Subject' }).fill(SUBJECT);
      await page.getByRole('textbox', { name: 'From address' }).fill('orders@not-verified.example');
      await page.getByRole('textbox', { name: 'Sender name' }).fill('Fjord Coffee');
      await page.getByRole('combobox', { name: 'Type' }).selectOption('TRANSACTIONAL');
      await setBody(page, BODY);

      // A sample contact is chosen by default: its data fills the placeholders; another can be picked.
      await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="preview-subject"]')?.textContent === 'Ваш заказ A-1042 в пути, Ксения');
      const picker = page.getByRole('combobox', { name: 'Preview as contact' });
      assert.equal(await picker.inputValue(), 'ksenia@fjord.example');
      const shown = await previewText(page, /Thank you, Ксения!/);
      assert.match(shown, /reach Kyōto within two working days/);
      assert.equal(await countInPreview(page, 'h1', 'Thank you, Ксения!'), 1);
      assert.equal(await countInPreview(page, 'td', '2'), 1);

      // The server refuses a sender on a domain the project has not verified: said under the field.
      await page.getByRole('button', { name: 'Create template' }).click();
      await page
        .getByText('The sender domain is not verified in this project.')
        .or(page.getByText(/not verified/))
        .first()
        .waitFor();
      const fromField = page.getByRole('textbox', { name: 'From address' });
      assert.equal(await fromField.getAttribute('aria-invalid'), 'true');
      await fromField.fill(`orders@${domain.domain}`);
      assert.notEqual(await fromField.getAttribute('aria-invalid'), 'true', 'an edit clears the refusal');
      // Keyboard: Tab leaves the body editor for the next control (no trap).
      await bodyEditor(page).click();
      await page.keyboard.press('Tab');
      assert.equal(await bodyEditor(page).evaluate((e: any) => e.ownerDocument.activeElement === e), false);

      await page.getByRole('button', { name: 'Create template' }).click();
      await page.getByText('All changes saved').waitFor();
      await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
      const templateId = page.url().split('/').pop()!;
      const saved = await project.api.get(`/templates/${templateId}`);
      assert.equal(saved.body.body, BODY);
      assert.equal(saved.body.type, 'TRANSACTIONAL');
      assert.equal(saved.body.fromName, 'Fjord Coffee');

      // A broken tag: the editor marks line 3, the preview keeps its last good render.
      await setBody(page, BROKEN);
      const error = page.getByRole('alert', { name: 'Syntax error in the body' });
      await error.waitFor();
      assert.match(await error.innerText(), /line 3, column 1/);
      const marked = page.locator('.cm-line', { has: page.locator('.cm-lintRange-error') });
      await marked.waitFor();
      assert.match(await marked.innerText(), /^\{% if vip %\}<p>ご注文/);
      await page.locator('.cm-lint-marker-error').waitFor();
      await page.getByText('The preview is not up to date').waitFor();
      await previewText(page, /Thank you, Ксения!/);
      await assertAccessible(page, 'template editor with a syntax error');
      await screenshot(page, 'template-error');
      // Saving is refused at the same place; nothing is stored.
      await page.getByRole('button', { name: 'Save template' }).click();
      await error.waitFor();
      assert.equal((await project.api.get(`/templates/${templateId}`)).body.body, BODY);

      await setBody(page, BODY);
      await error.waitFor({ state: 'detached' });
      await page.locator('.cm-lintRange-error').waitFor({ state: 'detached' });
      await page.getByText('Unsaved changes').or(page.getByText('All changes saved')).waitFor();
      await page.getByText('No campaign or workflow uses this template.').waitFor();
      await assertAccessible(page, 'template editor');
      await screenshot(page, 'template-editor');

      // Send a test to the contact's address and follow it to the email page.
      await page.getByRole('textbox', { name: 'Test recipient' }).fill('ksenia@fjord.example');
      await page.getByRole('button', { name: /send test$/i }).click();
      await page.getByText('Test email sent to ksenia@fjord.example.').waitFor();
      const [message] = await sink.waitForMessages(1, 30_000);
      assert.equal(message!.parsed.subject, '[Test] Ваш заказ A-1042 в пути, Ксения');
      assert.match(message!.parsed.html as string, /Thank you, Ксения!/);
      await page.getByRole('link', { name: 'Follow the test email' }).click();
      await page.getByText('DELIVERED', { exact: true }).waitFor({ timeout: 60_000 });
      await page.getByText('[Test] Ваш заказ A-1042 в пути, Ксения').first().waitFor();

      // Duplicate: the copy opens in the editor and appears in the list.
      await page.goBack();
      await page.getByRole('button', { name: 'Duplicate' }).click();
      await page.getByRole('heading', { name: 'Order shipped (copy)' }).waitFor();
      await checkPhoneWidth(ui.browser, server.url, page, page.url().replace(server.url, ''), 'template-editor', (p) =>
        p.getByTestId('preview-subject').getByText('Ваш заказ A-1042 в пути, Ксения').waitFor(),
      );
    } finally {
      await page.context().close();
    }
  });

  test('start from the newsletter starter in MJML, see an MJML error at its line, restore an older version', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const contact = await project.api.post('/contacts', { email: 'lena@fjord.example', data: { firstName: 'Лена' } });
    assert.equal(contact.status, 201, contact.text);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      // Step 1: a starter fills the new template; the preview shows the sample contact's name.
      await page.goto(`/p/${project.id}/templates/new`);
      await page.getByRole('heading', { name: 'New template' }).waitFor();
      await page.getByRole('combobox', { name: 'Start from' }).click();
      await page.getByRole('option', { name: /^Newsletter:/ }).click();
      await page.getByRole('textbox', { name: 'From address' }).fill(`news@${domain.domain}`);
      await previewText(page, /Hi Лена, this month we rebuilt the importer/);
      await page.getByRole('button', { name: 'Create template' }).click();
      await page.getByText('All changes saved').waitFor();
      await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
      const templateId = page.url().split('/').pop()!;
      const saved = await project.api.get(`/templates/${templateId}`);
      assert.equal(saved.body.format, 'mjml');
      assert.equal(saved.body.name, 'Newsletter');

      // Step 2: an unknown MJML element is marked at its line (line 4), and the preview says it is stale.
      const broken = [
        '<mjml>',
        '  <mj-body>',
        '    <mj-section><mj-column>',
        '      <mj-buton href="https://example.com">Read</mj-buton>',
        '    </mj-column></mj-section>',
        '  </mj-body>',
        '</mjml>',
      ].join('\n');
      await setBody(page, broken);
      const error = page.getByRole('alert', { name: 'Syntax error in the body' });
      await error.waitFor();
      assert.match(await error.innerText(), /line 4\b/);
      const marked = page.locator('.cm-line', { has: page.locator('.cm-lintRange-error') });
      await marked.waitFor();
      assert.match(await marked.innerText(), /<mj-buton/);
      await assertAccessible(page, 'MJML template with an error');

      // Step 3: the unsaved error is left; a second save changes the subject; version 1 is restored.
      await page.goto(`/p/${project.id}/templates/${templateId}`);
      await page.getByRole('heading', { name: 'Newsletter' }).waitFor();
      await page.getByRole('textbox', { name: 'Subject' }).fill('A quieter subject');
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText('All changes saved').waitFor();
      const history = page.getByRole('table', { name: 'Versions' });
      await history.getByText('A quieter subject').waitFor();
      await page.getByRole('button', { name: 'Restore version 1' }).click();
      await history.locator('tbody tr').nth(2).waitFor();
      await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="preview-subject"]')?.textContent?.startsWith('Acme monthly'));
      assert.match((await project.api.get(`/templates/${templateId}`)).body.subject, /^\{\{ data.company/);
      await assertAccessible(page, 'template history');
      await screenshot(page, 'template-mjml-editor');
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });

  test('the list searches, filters by type and pages', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `news@${domain.domain}`;
    for (let i = 0; i < 27; i++) {
      const type = i % 3 === 0 ? 'TRANSACTIONAL' : 'MARKETING';
      const name = i === 4 ? 'Rückblick 2026 — 年間のまとめ' : `Newsletter ${String(i).padStart(2, '0')}`;
      const res = await project.api.post('/templates', { name, subject: `Issue ${i}: {{ first_name ?? "reader" }}`, body: `<p>Issue ${i}</p>`, from, type });
      assert.equal(res.status, 201, res.text);
    }
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/templates`);
      await page.getByText('27 templates.').waitFor();
      const table = page.getByRole('table', { name: 'Templates' });
      assert.equal(await table.locator('tbody tr').count(), 25);
      await page.getByText('Page 1 of 2').waitFor();
      await assertAccessible(page, 'templates');
      await screenshot(page, 'templates');
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2 of 2').waitFor();
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table[aria-label="Templates"] tbody tr').length === 2);

      await page.getByText('Transactional', { exact: true }).first().click();
      await page.getByText('9 templates match.').waitFor();
      await page.getByRole('searchbox', { name: /Search templates/ }).fill('年間');
      await page.getByText('No template matches').waitFor();
      await page.getByText('All', { exact: true }).first().click();
      await page.getByText('1 template matches.').waitFor();
      await table.getByRole('link', { name: 'Rückblick 2026 — 年間のまとめ' }).click();
      await page.getByRole('heading', { name: 'Rückblick 2026 — 年間のまとめ' }).waitFor();

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/templates`, 'templates', (p) => p.getByText('27 templates.').waitFor());
    } finally {
      await page.context().close();
    }
  });
});
