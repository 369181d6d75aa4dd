import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, SCREENSHOT_DIR, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { type VerifiedDomain, verifiedDomain } from '../kit/domains.ts';
import { receiver } from '../kit/mailauth.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const GREETING = 'Привет, Лена! Мы открыли новый склад в Казани: заказы из Поволжья теперь приходят на два дня быстрее. 東京の倉庫も来月から稼働します。';
const BUTTON_TEXT = 'Продлить тариф';

/** A port no one listens on now: the server is started on it so that PUBLIC_URL (the uploads' address) is its own origin. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A press of the mouse on `from`, a move in steps to `to` (page coordinates, the canvas frame included) and a release: a block dragged by hand. */
async function dragTo(page: Page, from: Locator, to: { x: number; y: number }) {
  const box = (await from.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 12, box.y + box.height / 2 + 12, { steps: 4 });
  await nextFrames(page);
  await page.mouse.move(to.x, to.y, { steps: 20 });
  // A few small moves over the target: each dragover lets the editor place its drop marker.
  for (const dy of [1, 2, 1]) await page.mouse.move(to.x, to.y + dy, { steps: 2 });
  // The release after the page has drawn the marker, as a hand is slower than the events.
  await nextFrames(page);
  await page.mouse.up();
}

/** Two animation frames of the page: what it does in response to input has been drawn. */
const nextFrames = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))));

/** Just inside the bottom edge of an element in the canvas: a drop there lands after it, in its parent. */
async function below(element: Locator) {
  const box = (await element.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height - 3 };
}

/** Double-clicks a text or button of the canvas and selects all its text once it is being edited. */
async function editAll(page: Page, element: Locator, text: string) {
  await element.dblclick();
  await canvas(page).locator('[contenteditable="true"]').waitFor();
  // Editing starts a moment after the double-click: select again until the text is what is selected.
  await until(`"${text}" is selected`, async () => {
    await page.keyboard.press('Control+a');
    return (await frameSelection(page)) === text;
  });
}

const frameSelection = (page: Page) => page.locator('iframe.gjs-frame').evaluate((frame: any) => frame.contentDocument.getSelection().toString() as string);

/** A click on the canvas beside the email (its left margin). */
async function clickBeside(page: Page) {
  const box = (await page.locator('iframe.gjs-frame').boundingBox())!;
  await page.mouse.click(box.x + 20, box.y + box.height / 2);
}

const canvas = (page: Page) => page.frameLocator('iframe.gjs-frame');
const block = (page: Page, name: string) => page.locator('.gjs-block', { hasText: name });
const countIn = (page: Page, type: string) => canvas(page).locator(`[data-gjs-type="${type}"]`).count();

async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Dashboard: the visual editor', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let project: TestProject;
  let domain: VerifiedDomain;
  let page: Page;
  let templateId: string;
  let imageUrl: string;
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    const port = await freePort();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }));
    project = await createProject(server.url);
    domain = await verifiedDomain(project, dns);
    const contact = await project.api.post('/contacts', { email: 'lena@volga.example', data: { firstName: 'Лена', plan: 'Команда (годовой)', city: 'Казань' } });
    assert.equal(contact.status, 201, contact.text);
  });
  after(async () => {
    await page?.context().close();
    await server?.close();
    await sink?.close();
  });

  /** Runs one step of the user's task; a failure says what the page showed. */
  async function step(run: () => Promise<void>) {
    assert.ok(page, 'the editor was never opened');
    try {
      await run();
    } catch (error) {
      throw await withPageState(page, error);
    }
  }

  test('a new template starts from the newsletter starter, in the visual editor', async () => {
    page = await pageAs(ui.browser, server.url, project.owner);
    await step(async () => {
      await page.goto(`/p/${project.id}/templates/new`);
      await page.getByRole('heading', { name: 'New template' }).waitFor();
      await page.getByRole('combobox', { name: 'Start from' }).click();
      await page.getByRole('option', { name: /^Newsletter:/ }).click();
      await page.getByRole('textbox', { name: 'From address' }).fill(`news@${domain.domain}`);
      await page.getByText('Visual', { exact: true }).click();
      await block(page, 'Two columns').waitFor();
      await canvas(page).getByText('Faster imports, and a new way to write emails').waitFor();
      // The whole editor in view below the page's header: blocks, canvas and panels.
      await page.locator('.mr-visual').evaluate((element) => element.scrollIntoView({ block: 'end' }));
      assert.equal(await countIn(page, 'mj-section'), 5, 'the starter has five sections');
      assert.equal(await page.getByRole('button', { name: 'Undo' }).isDisabled(), true, 'opening is not an edit');
    });
  });

  test('a two-column section dragged onto the email lands there', async () => {
    await step(async () => {
      // Onto the lower edge of the starter's white card: the section goes after it.
      await dragTo(page, block(page, 'Two columns'), await below(canvas(page).locator('[data-gjs-type="mj-section"]').nth(1)));
      await canvas(page).getByText('Content 2', { exact: true }).waitFor();
      assert.equal(await countIn(page, 'mj-section'), 6);
      assert.equal(await countIn(page, 'mj-column'), 7, 'the two new columns beside the five of the starter');
    });
  });

  test('undo removes a dropped block, redo puts it back (buttons and keyboard)', async () => {
    await step(async () => {
      const dividers = await countIn(page, 'mj-divider');
      await dragTo(page, block(page, 'Divider'), await below(canvas(page).getByText('Content 1', { exact: true })));
      await until('the divider is dropped', async () => (await countIn(page, 'mj-divider')) === dividers + 1);
      await page.getByRole('button', { name: 'Undo' }).click();
      await until('undo removes the divider', async () => (await countIn(page, 'mj-divider')) === dividers);
      await page.getByRole('button', { name: 'Redo' }).click();
      await until('redo puts it back', async () => (await countIn(page, 'mj-divider')) === dividers + 1);
      await page.keyboard.press('Control+z');
      await until('Ctrl+Z removes it again', async () => (await countIn(page, 'mj-divider')) === dividers);
      assert.equal(await countIn(page, 'mj-section'), 6, 'undo took back the divider only, not the section before it');
    });
  });

  test('a text block is rewritten with the rich text editor, in Russian and Japanese', async () => {
    await step(async () => {
      await editAll(page, canvas(page).getByText('Content 2', { exact: true }), 'Content 2');
      await page.locator('.gjs-rte-toolbar').waitFor();
      await page.keyboard.type(GREETING);
      // "Лена" in bold: selected with the keyboard, then the editor's Bold action.
      await page.keyboard.press('Control+Home');
      for (let i = 0; i < 'Привет, '.length; i++) await page.keyboard.press('ArrowRight');
      for (let i = 0; i < 'Лена'.length; i++) await page.keyboard.press('Shift+ArrowRight');
      await until('"Лена" is selected', async () => (await frameSelection(page)) === 'Лена');
      await page.locator('.gjs-rte-action[title="Bold"]').click();
      await canvas(page)
        .locator('b, strong')
        .filter({ hasText: /^Лена$/ })
        .waitFor();
      // A click beside the email ends the editing, as a user leaves a text.
      await clickBeside(page);
      await until('the text is no longer being edited', async () => (await canvas(page).locator('[contenteditable="true"]').count()) === 0);
    });
  });

  test('an image dragged into a column is uploaded from disk through the picker', async () => {
    await step(async () => {
      // A real PNG written to disk: a banner drawn by the browser.
      const file = join(mkdtempSync(join(tmpdir(), 'visual-editor-')), 'kazan-warehouse.png');
      const banner = await page.context().newPage();
      await banner.setContent(
        '<div style="width:560px;height:200px;background:linear-gradient(90deg,#1c7ed6,#15aabf);color:#fff;font:700 36px sans-serif;padding:24px">Склад в Казани</div>',
      );
      await banner.locator('div').screenshot({ path: file });
      await banner.close();

      await dragTo(page, block(page, 'Image'), await below(canvas(page).getByText('Content 1', { exact: true })));
      await page.getByText('Choose an image').waitFor();
      const chooser = page.waitForEvent('filechooser');
      await page.locator('.gjs-am-file-uploader input[type=file]').click();
      await (await chooser).setFiles(file);
      await page.getByText('Choose an image').waitFor({ state: 'hidden' });
      const image = canvas(page).locator('[data-gjs-type="mj-image"] img');
      await until('the uploaded image shows in the canvas', async () => (await image.evaluate((img: any) => img.complete && img.naturalWidth)) > 0);
      imageUrl = await image.evaluate((img: any) => img.src as string);
      assert.match(imageUrl, new RegExp(`^${server.url}/uploads/[0-9a-f-]{36}\\.png$`));
    });
  });

  test('a button dragged under the text gets a contact variable from the Variables menu', async () => {
    await step(async () => {
      await dragTo(page, block(page, 'Button'), await below(canvas(page).getByText(/Привет, Лена!/)));
      await editAll(page, canvas(page).getByText('Button', { exact: true }), 'Button');
      await page.keyboard.type(`${BUTTON_TEXT} `);
      await page.getByRole('button', { name: 'Variables' }).click();
      await page.getByRole('textbox', { name: 'Fallback when the contact has no value' }).fill('вашего тарифа');
      await page.getByRole('menuitem', { name: 'plan' }).click();
      await canvas(page).getByText(`${BUTTON_TEXT} {{ data.plan ?? "вашего тарифа" }}`, { exact: true }).waitFor();
      await assertAccessible(page, 'the visual editor');
    });
  });

  test('saving keeps the MJML and the editor state; the design opens again as it was', async () => {
    await step(async () => {
      await page.getByRole('button', { name: 'Create template' }).click();
      await page.getByText('All changes saved').waitFor();
      await page.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
      templateId = page.url().split('/').pop()!;
      const saved = (await project.api.get(`/templates/${templateId}`)).body;
      assert.equal(saved.format, 'visual');
      assert.equal(typeof saved.editorState, 'object');
      assert.ok(Array.isArray(saved.editorState.pages), 'the editor state is the project data of the editor');
      assert.ok(saved.source.includes(`<mj-image src="${imageUrl}"`), saved.source);
      // The space typed before the variable is a no-break space, as a browser keeps a trailing space it is editing.
      assert.match(saved.source, new RegExp(`<mj-button>${BUTTON_TEXT}(?:[ \u00a0]|&nbsp;)\\{\\{ data\\.plan \\?\\? "вашего тарифа" \\}\\}</mj-button>`), saved.source);
      assert.match(saved.source, /<b>Лена<\/b>|<strong>Лена<\/strong>/);
      assert.ok(saved.source.includes('東京の倉庫も来月から稼働します。'));
      assert.ok(saved.source.includes('href="{{ unsubscribeUrl }}"'), 'the starter footer is kept');
      assert.ok(saved.body.includes(imageUrl), 'the server rendered the MJML into the body');

      await page.reload();
      await canvas(page).getByText(`${BUTTON_TEXT} {{ data.plan ?? "вашего тарифа" }}`).waitFor();
      await canvas(page)
        .getByText(/Мы открыли новый склад в Казани/)
        .waitFor();
      assert.equal(await countIn(page, 'mj-image'), 1);
      await page.getByText('All changes saved').waitFor();
      await screenshot(page, 'visual-editor');
      // The editor itself, as docs/templates.md shows it.
      await page.locator('.mr-visual').evaluate((element) => element.scrollIntoView({ block: 'end' }));
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'visual-editor-design-1280.png'), animations: 'disabled' });
    });
  });

  test('a test send renders the contact’s value and passes DKIM', async () => {
    await step(async () => {
      await page.getByRole('textbox', { name: 'Test recipient' }).fill('lena@volga.example');
      await page.getByRole('button', { name: /send test$/i }).click();
      await page.getByText('Test email sent to lena@volga.example.').waitFor();
      const [message] = await sink.waitForMessages(1, 30_000);
      const html = message!.parsed.html as string;
      assert.match(
        html,
        new RegExp(`>\\s*${BUTTON_TEXT}(?:[ \u00a0]|&nbsp;)Команда \\(годовой\\)\\s*<`),
        'the variable renders the contact’s plan, as the whole text of the button',
      );
      assert.ok(html.includes('Мы открыли новый склад в Казани'));
      assert.ok(html.includes(`src="${imageUrl}"`));
      assert.doesNotMatch(html, /\{\{|\}\}/, 'no Liquid left in the message');
      const verdicts = await receiver(dns)(message!.raw, { ip: '127.0.0.1', sender: message!.envelope.from });
      assert.deepEqual({ dkim: verdicts.dkim, d: verdicts.dkimDomain }, { dkim: 'pass', d: domain.domain }, verdicts.detail);
    });
  });

  test('on a phone the MJML of the design is offered instead', async () => {
    await step(async () => {
      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/templates/${templateId}`, 'visual-editor', async (phone) => {
        await phone.getByText(/The visual editor needs a wider screen/).waitFor();
        const mjml = phone.getByRole('textbox', { name: 'Body (MJML)' });
        await mjml.waitFor();
        // The editor's MJML, one element a line (the first lines are in view).
        assert.match(await mjml.innerText(), /^<mjml>\n<mj-head>\n<mj-preview>The month in three stories<\/mj-preview>\n/);
      });
    });
  });

  test('a blank template made visual starts from a blank design, and saves', async () => {
    const blank = await pageAs(ui.browser, server.url, project.owner);
    try {
      await blank.goto(`/p/${project.id}/templates/new`);
      await blank.getByRole('textbox', { name: 'Name', exact: true }).fill('Письмо с нуля');
      await blank.getByRole('textbox', { name: 'Subject' }).fill('Новости склада');
      await blank.getByRole('textbox', { name: 'From address' }).fill(`news@${domain.domain}`);
      await blank.getByText('Visual', { exact: true }).click();
      await canvas(blank)
        .getByText(/write your message here/)
        .waitFor();
      await blank.getByRole('button', { name: 'Create template' }).click();
      await blank.getByText('All changes saved').waitFor();
      await blank.waitForURL(/\/templates\/[0-9a-f-]{36}$/);
      const saved = (await project.api.get(`/templates/${blank.url().split('/').pop()}`)).body;
      assert.equal(saved.format, 'visual');
      assert.match(saved.source, /^<mjml>\n<mj-body/);
      assert.ok(saved.body.includes('write your message here.'), 'the server rendered the blank design');
    } catch (error) {
      throw await withPageState(blank, error);
    } finally {
      await blank.context().close();
    }
  });
});
