import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, openPage, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { totpCode } from '../kit/totp.ts';

describe('Dashboard: two-factor sign-in, set up on the account page and asked for at log-in', BROWSER_PASS, () => {
  let server: TestServer;
  let project: TestProject;
  let secret = '';
  let recoveryCodes: string[] = [];
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
  });
  after(() => server.close());

  test('the owner scans the QR code (here: reads the secret), confirms with a code and sees ten recovery codes once', async () => {
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/account`);
      const section = page.getByRole('region', { name: 'Two-factor sign-in' });
      await section.getByText('Off: your password alone logs you in.').waitFor();
      await section.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      await section.getByRole('img', { name: /QR code/ }).waitFor();
      secret = (await section.getByTestId('totp-secret').innerText()).trim();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      await assertAccessible(page, 'two-factor enrolment');
      await screenshot(page, 'two-factor-enrol');
      await section.getByLabel('Code from the app').fill(totpCode(secret));
      await section.getByRole('button', { name: 'Turn on' }).click();
      await section.getByText('On: logging in asks for a code').waitFor();
      const codes = section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
      recoveryCodes = (await codes.allInnerTexts()).map((code) => code.trim());
      assert.equal(recoveryCodes.length, 10);
      await section.getByRole('button', { name: 'Copy recovery codes' }).waitFor();
      await assertAccessible(page, 'two-factor recovery codes');
      assert.equal((await client(server.url, { cookie: project.owner.cookie }).get('/users/@me')).body.twoFactorEnabled, true);
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });

  test('logging in asks for the code after the password, and opens the dashboard with it', async () => {
    assert.ok(secret, 'enrolled in the step before');
    const page = await openPage(ui.browser, server.url);
    try {
      await page.goto('/login');
      await page.getByLabel('Email').fill(project.owner.email);
      await page.getByRole('textbox', { name: 'Password' }).fill(project.owner.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
      await assertAccessible(page, 'log-in code step');
      await screenshot(page, 'two-factor-login');
      // The next code the app shows: the one that turned it on is spent (RFC 6238 §5.2).
      await page.getByLabel('Code').fill(totpCode(secret, 1));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
      await page.goto(`/p/${project.id}/account`);
      await page.getByText('On: logging in asks for a code').waitFor();
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });

  test('a recovery code logs in once when the phone is lost', async () => {
    assert.equal(recoveryCodes.length, 10, 'recovery codes from the first step');
    const page = await openPage(ui.browser, server.url);
    try {
      await page.goto('/login');
      await page.getByLabel('Email').fill(project.owner.email);
      await page.getByRole('textbox', { name: 'Password' }).fill(project.owner.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });
});
