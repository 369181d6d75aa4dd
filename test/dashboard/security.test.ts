import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, sessionCookieFrom, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('Dashboard: named API keys and the account’s sessions', BROWSER_PASS, () => {
  let server: TestServer;
  let project: TestProject;
  const ui = useDashboardBrowser();
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
  });
  after(() => server.close());

  test('an owner creates a sending key for the checkout service, copies it once, and revokes it', async () => {
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/keys`);
      const form = page.getByRole('form', { name: 'Create a named key' });
      await form.getByLabel('Name').fill('Checkout service — 결제');
      await form.getByLabel('Scope').selectOption('sending');
      await form.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByLabel('New key value');
      await shown.waitFor();
      const key = (await shown.innerText()).trim();
      assert.match(key, /^sk_/);
      await assertAccessible(page, 'API keys with a named key');
      await screenshot(page, 'named-keys');
      const sending = client(server.url, { key });
      const refused = await sending.get('/contacts');
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error.code, 'API_KEY_SCOPE_INSUFFICIENT');
      const row = page.getByRole('row', { name: /Checkout service/ });
      await row.getByText('Sending only').waitFor();
      await row.getByRole('button', { name: /Revoke Checkout service/ }).click();
      await row.waitFor({ state: 'detached' });
      assert.equal((await sending.get('/v1/whoami')).status, 401, 'the revoked key stopped at once');
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });

  test('the account page lists the sessions and signs every other one out', async () => {
    const login = await client(server.url).post('/auth/login', { email: project.owner.email, password: project.owner.password }, { headers: { 'user-agent': FIREFOX } });
    assert.equal(login.status, 200, login.text);
    const laptop = sessionCookieFrom(login.headers);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/account`);
      const sessions = page.getByRole('region', { name: 'Sessions' });
      await sessions.getByText('Firefox 133 on Windows').waitFor();
      await sessions.getByText('This device').waitFor();
      await assertAccessible(page, 'account sessions');
      await screenshot(page, 'account-sessions');
      await sessions.getByRole('button', { name: 'Sign out everywhere else' }).click();
      await sessions.getByText('Signed out of 1 other session.').waitFor();
      assert.equal((await client(server.url).get('/users/@me', { cookie: laptop })).status, 401, 'the other session ended');
      assert.equal((await client(server.url).get('/users/@me', { cookie: project.owner.cookie })).status, 200, 'this one stays');
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });
});
