import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PACKAGE_ROOT } from '../../src/paths.ts';

/** Debian's chromium (`apt-get install chromium`); Playwright's own download cannot run here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(PACKAGE_ROOT, 'test-results', 'screenshots');
export const WIDTHS = { desktop: 1280, phone: 390 } as const;

const LOCK = join(PACKAGE_ROOT, 'dist', '.web-build.lock');

/**
 * Builds the dashboard when web/ changed since its last build. Test files run in parallel: one
 * builds under a lock directory while the others wait for it.
 */
export async function ensureDashboardBuilt(): Promise<void> {
  // A plain .mjs script without declarations, found from the repository: a compiled run of the
  // tests (scripts/test.mjs) holds no copy of it.
  const { buildWeb, isBuilt } = await import(pathToFileURL(join(PACKAGE_ROOT, 'scripts', 'build-web.mjs')).href);
  mkdirSync(join(PACKAGE_ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (isBuilt()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // A lock left by a killed run is older than any build.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('the dashboard build did not finish');
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      await buildWeb({ quiet: true });
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

/** One headless chromium per test file. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A test file's browser: registers hooks that build the dashboard if stale and launch chromium
 * before the file's own (so they run first), and close it after. Call it inside `describe`.
 */
export function useDashboardBrowser(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  before(async () => {
    await ensureDashboardBuilt();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('the browser starts in before(): use it inside a test');
      return browser;
    },
  };
}

/** What went wrong in a page besides the test's own assertions: script errors, failed and 4xx/5xx requests. */
const troubles = new WeakMap<Page, string[]>();

/** A fresh context (own cookies) and page at `width` px, with generous timeouts for a loaded machine. */
export async function openPage(browser: Browser, baseURL: string, width: number = WIDTHS.desktop): Promise<Page> {
  const context = await browser.newContext({ baseURL, viewport: { width, height: width < 600 ? 844 : 900 }, reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const seen: string[] = [];
  troubles.set(page, seen);
  page.on('pageerror', (error) => seen.push(`script error: ${error.message}`));
  page.on('requestfailed', (request) => seen.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) seen.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return page;
}

/**
 * `error` with the page's state appended (its address, visible text and troubles), so that a step
 * that timed out says what the page showed instead. Use as `catch (error) { throw await
 * withPageState(page, error) }`.
 */
export async function withPageState(page: Page, error: unknown): Promise<unknown> {
  if (!(error instanceof Error) || page.isClosed()) return error;
  const text = await page
    .locator('body')
    .innerText({ timeout: 2_000 })
    .catch(() => '(unreadable)');
  // What status lines and alerts say, and whether the page was in the background (its timers throttled).
  const signals = await page
    .evaluate(() => {
      const document = (globalThis as any).document;
      const said = [...document.querySelectorAll('[role="status"], [role="alert"]')].map((e: any) => e.textContent.trim()).filter(Boolean);
      return `${document.visibilityState}${document.hasFocus() ? ', focused' : ''}; ${said.join(' | ') || 'nothing'}`;
    })
    .catch(() => '(unreadable)');
  const state = `\n  page: ${page.url()}\n  showing: ${text.replace(/\s+/g, ' ').slice(0, 2000)}\n  statuses: ${signals}\n  troubles: ${(troubles.get(page) ?? []).slice(-10).join('; ') || 'none'}`;
  error.message += state;
  // The test reporter prints the stack, whose first lines are the message as it was when thrown.
  if (error.stack) error.stack += state;
  return error;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] };

/** Runs axe-core on the page as it is and fails on any serious or critical violation (WCAG 2.1 A and AA). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through DevTools, not added as an inline <script>: the page's CSP (script-src 'self') refuses those.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const document = (globalThis as any).document;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return result.violations as AxeViolation[];
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(' ')} (${n.failureSummary?.replaceAll('\n', ' ')})`)
          .join('; ')}`,
    ),
    [],
    `accessibility violations on ${what}`,
  );
}

/**
 * Saves a full-page screenshot as test-results/screenshots/<name>-<width>.png (gitignored). From
 * the top: a page left scrolled drew the fixed header part-way down the full-page image.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true, animations: 'disabled' });
}

/** Checks a page at phone width too: accessible, nothing wider than the screen, and a screenshot. */
export async function checkPhoneWidth(browser: Browser, baseURL: string, cookiePage: Page, path: string, name: string, ready: (page: Page) => Promise<unknown>) {
  const page = await openPage(browser, baseURL, WIDTHS.phone);
  try {
    await page.context().addCookies(await cookiePage.context().cookies());
    await page.goto(path);
    await ready(page);
    const overflow = await page.evaluate(() => {
      const root = (globalThis as any).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    assert.ok(overflow <= 0, `${name} is ${overflow} px wider than a ${WIDTHS.phone} px screen`);
    await assertAccessible(page, `${name} at ${WIDTHS.phone} px`);
    await screenshot(page, name);
  } finally {
    await page.context().close();
  }
}

/** A page at `width` px already logged in as `account` (its session cookie set for the server). */
export async function pageAs(browser: Browser, baseURL: string, account: { cookie: string }, width: number = WIDTHS.desktop): Promise<Page> {
  const page = await openPage(browser, baseURL, width);
  const [name, ...value] = account.cookie.split('=');
  await page.context().addCookies([{ name: name!, value: value.join('='), url: baseURL, httpOnly: true, sameSite: 'Lax' }]);
  return page;
}

/**
 * Browser tests drive the dashboard in the embedded pass only: the API beneath every page is tested
 * on each database by its own suites, and a browser pass per database would triple the suite's
 * longest tests. Under TEST_DATABASE_URL a browser test file reports itself skipped.
 */
export const BROWSER_PASS = {
  skip: process.env.TEST_DATABASE_URL ? 'browser tests run in the embedded pass; the API beneath them runs on every database' : false,
} as const;
