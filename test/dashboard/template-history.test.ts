import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

const V1_SUBJECT = 'Kursplan für den Winter, {{ data.firstName ?? "Freunde" }}';
const V1 = [
  '<h1>Winter courses at the print hall</h1>',
  '<p>The presses are back in order and the windows face south: from December the workshop is open on Saturdays from ten until the light goes, and on Wednesday evenings for members.</p>',
  '<table><tr><th>Course</th><th>Date</th></tr><tr><td>活版印刷の基礎</td><td>12 December</td></tr><tr><td>Bookbinding</td><td>19 December</td></tr></table>',
  '<ul><li>Tea and biscuits are on us.</li><li>مرحبا بكم في الورشة</li></ul>',
  '<p>Seats: eight per course.</p>',
  '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>',
].join('\n');
// The second save changes one line; the third the subject and another line.
const V2 = V1.replace('<p>Seats: eight per course.</p>', '<p>Seats: six per course, to keep the presses free.</p>');
const V3_SUBJECT = 'Kursplan für den Winter — jetzt buchen';
const V3 = V2.replace('<td>Bookbinding</td><td>19 December</td>', '<td>Bookbinding</td><td>9 January</td>');

/** The CodeMirror body: its content element is the textbox named by the field's label. */
const bodyEditor = (page: Page) => page.getByRole('textbox', { name: 'Body (HTML and Liquid)' });

async function setBody(page: Page, source: string) {
  const editor = bodyEditor(page);
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await editor.fill(source);
}

/** The text of the editor's lines (CodeMirror draws each line as its own element). */
const editorText = (page: Page) =>
  page.evaluate(() => [...((globalThis as any).document.querySelectorAll('.cm-content .cm-line') as any[])].map((line) => line.textContent as string).join('\n'));

describe('Dashboard: a template saved three times, two versions compared, the first restored', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let project: TestProject;
  let page: Page;
  let templateId = '';
  let from = '';
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
    project = await createProject(server.url);
    from = `courses@${(await verifiedDomain(project, dns)).domain}`;
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

  step('create the template, then save it twice more: three versions are listed', async () => {
    await page.goto(`/p/${project.id}/templates/new`);
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Winter courses');
    await page.getByRole('textbox', { name: 'Subject' }).fill(V1_SUBJECT);
    await page.getByRole('textbox', { name: 'From address' }).fill(from);
    await setBody(page, V1);
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
    await page.getByText('All changes saved').waitFor();
    templateId = page.url().split('/').pop()!;

    await setBody(page, V2);
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('All changes saved').waitFor();
    await page.getByRole('textbox', { name: 'Subject' }).fill(V3_SUBJECT);
    await setBody(page, V3);
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('All changes saved').waitFor();

    const history = page.getByRole('table', { name: 'Versions' });
    await history.getByText(V3_SUBJECT).waitFor();
    assert.equal(await history.locator('tbody tr').count(), 3);
    const versions = await project.api.get(`/templates/${templateId}/versions`);
    assert.deepEqual(
      versions.body.data.map((v: { version: number; subject: string }) => [v.version, v.subject]),
      [
        [3, V3_SUBJECT],
        [2, V1_SUBJECT],
        [1, V1_SUBJECT],
      ],
    );
  });

  step('compare version 1 with version 3: the changed subject and lines are marked removed and added', async () => {
    await page.getByRole('combobox', { name: 'Compare', exact: true }).selectOption('1');
    await page.getByRole('combobox', { name: 'with', exact: true }).selectOption('3');
    await page.getByRole('button', { name: 'Show changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Changes from version 1 to version 3' });
    const source = dialog.getByLabel('Changes to the source');
    await source.waitFor();

    const removed = await source.locator('del').allInnerTexts();
    const added = await source.locator('ins').allInnerTexts();
    assert.deepEqual(removed, [
      '- <table><tr><th>Course</th><th>Date</th></tr><tr><td>活版印刷の基礎</td><td>12 December</td></tr><tr><td>Bookbinding</td><td>19 December</td></tr></table>',
      '- <p>Seats: eight per course.</p>',
    ]);
    assert.deepEqual(added, [
      '+ <table><tr><th>Course</th><th>Date</th></tr><tr><td>活版印刷の基礎</td><td>12 December</td></tr><tr><td>Bookbinding</td><td>9 January</td></tr></table>',
      '+ <p>Seats: six per course, to keep the presses free.</p>',
    ]);
    assert.equal(await dialog.getByTestId('diff-summary').innerText(), '2 lines added, 2 removed.');
    // Unchanged lines are shown as they are, without a mark.
    assert.match(await source.innerText(), /^ {2}<ul><li>Tea and biscuits are on us\.<\/li><li>مرحبا بكم في الورشة<\/li><\/ul>$/m);

    const subject = dialog.getByLabel('Changes to the subject');
    assert.deepEqual(await subject.locator('del').allInnerTexts(), [`- ${V1_SUBJECT}`]);
    assert.deepEqual(await subject.locator('ins').allInnerTexts(), [`+ ${V3_SUBJECT}`]);
    await assertAccessible(page, 'template version comparison');
    await screenshot(page, 'template-version-diff');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  step('restore version 1: the editor shows its subject and body, saved as version 4', async () => {
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    const history = page.getByRole('table', { name: 'Versions' });
    await history.locator('tbody tr').nth(3).waitFor();
    const subject = page.getByRole('textbox', { name: 'Subject' });
    const deadline = Date.now() + 30_000;
    while ((await subject.inputValue()) !== V1_SUBJECT) {
      assert.ok(Date.now() < deadline, `the editor's subject stayed ${await subject.inputValue()}`);
      await page.waitForTimeout(100);
    }
    assert.equal(await editorText(page), V1);
    const saved = await project.api.get(`/templates/${templateId}`);
    assert.deepEqual([saved.body.subject, saved.body.body], [V1_SUBJECT, V1]);
    const versions = await project.api.get(`/templates/${templateId}/versions`);
    assert.equal(versions.body.data[0].version, 4);
  });
});
