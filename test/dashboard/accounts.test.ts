import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, openPage, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

describe('Dashboard: sign up, project, log out and in, password reset, address confirmation', BROWSER_PASS, () => {
  let server: TestServer;
  let sink: SmtpSink;
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ SMTP_URL: sink.url });
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  async function mailTo(address: string, subject: string): Promise<SinkMessage> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = sink.messages.find((m) => m.envelope.to.includes(address) && m.parsed.subject === subject);
      if (found) return found;
      if (Date.now() > deadline) assert.fail(`no "${subject}" mail to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  /** The path and query of the link in an account mail (its host is PUBLIC_URL's). */
  const linkIn = (message: SinkMessage, page: string) => {
    const match = new RegExp(`https?://[^"\\s]+(/${page}\\?token=[^"\\s]+)`).exec(message.parsed.html || message.parsed.text || '');
    assert.ok(match, `no /${page} link in the mail`);
    return match[1]!.replaceAll('&amp;', '&');
  };

  test('a new user signs up, creates a project, logs out, resets the password and logs in again', async () => {
    const email = uniqueEmail('ada');
    const page = await openPage(ui.browser, server.url);
    try {
      // GET / while logged out lands on the log-in page.
      await page.goto('/');
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await assertAccessible(page, 'log in');
      await screenshot(page, 'login');

      await page.getByRole('link', { name: 'Create an account' }).click();
      // The page is a lazily loaded chunk: until it shows, 'Email' is still the log-in form's field.
      await page.getByRole('button', { name: 'Create account' }).waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel(/^Password/).fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      // The server's field error appears under the field that caused it, as its description, in
      // plain words (the envelope says "Too small: expected string to have >=8 characters").
      await page.getByText('Use at least 8 characters').waitFor();
      const described = await page.getByLabel(/^Password/).evaluate((input) => {
        const doc = (globalThis as any).document;
        return (input.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id: string) => doc.getElementById(id)?.textContent)
          .join(' ');
      });
      assert.match(described, /Use at least 8 characters/, "the error is the field's accessible description");
      assert.doesNotMatch(await page.locator('body').innerText(), /Too small|expected string/, 'no schema wording reaches the page');
      await page.getByLabel(/^Password/).fill('a long passphrase, 多言語 ok');
      await page.getByRole('button', { name: 'Create account' }).click();

      await page.getByRole('heading', { name: 'New project' }).waitFor();
      await assertAccessible(page, 'new project');
      await page.getByLabel('Project name').fill('Fjord Coffee — 北欧');
      await page.getByRole('button', { name: 'Create project' }).click();

      await page.getByRole('heading', { name: 'Get started' }).waitFor();
      const steps = page.getByRole('list', { name: 'Setup steps' });
      await steps.getByText('Add a sending domain').waitFor();
      await page.getByText(/0 of \d+ done/).waitFor();
      await assertAccessible(page, 'get started');
      await screenshot(page, 'get-started');
      const projectPath = new URL(page.url()).pathname;
      assert.match(projectPath, /^\/p\/[0-9a-f-]{36}$/);

      // The copied curl command holds the project's own secret key and works as is.
      await page.getByRole('button', { name: 'Copy the command: Track an event' }).click();
      const command = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
      const key = /Bearer (pk_\S+)'/.exec(command)?.[1];
      assert.ok(key, command);
      const tracked = await fetch(`${server.url}/v1/track`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.com', event: 'signed-up' }),
      });
      assert.equal(tracked.status, 200);
      await page.reload();
      await page.getByText(/1 of \d+ done|2 of \d+ done/).waitFor();

      // Address confirmation: the menu mails a link; the link's page confirms on a click.
      await page.getByRole('button', { name: email }).click();
      await page.getByRole('menuitem', { name: 'Mail me a link to confirm my address' }).click();
      await page.getByText(`Sent to ${email}`).waitFor();
      await page.goto(linkIn(await mailTo(email, 'Confirm your email address'), 'verify-email'));
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await page.getByText(`${email} is confirmed.`).waitFor();
      await assertAccessible(page, 'verify email');

      await page.goto(projectPath);
      await page.getByRole('button', { name: email }).click();
      await page.getByRole('menuitem', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      // The session is gone: a project page sends back to log in.
      await page.goto(projectPath);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();

      await page.getByLabel('Email').fill(email);
      await page.getByLabel(/^Password/).fill('not the password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').getByText('The email or password is incorrect.').waitFor();

      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      // The page is a lazily loaded chunk: until it shows, 'Email' is still the log-in form's field.
      await page.getByRole('button', { name: 'Send the link' }).waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByText('Check your inbox').waitFor();
      await assertAccessible(page, 'forgot password');
      await page.goto(linkIn(await mailTo(email, 'Reset your password'), 'reset-password'));
      await page.getByLabel(/^New password/).fill('another long passphrase');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('Password changed').waitFor();
      await page.getByRole('link', { name: 'Log in' }).click();

      // Logging in goes back to the page asked for (`next`), here the project's.
      await page.goto(`/login?next=${encodeURIComponent(projectPath)}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel(/^Password/).fill('another long passphrase');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Get started' }).waitFor();
      assert.equal(new URL(page.url()).pathname, projectPath);
      await page.getByRole('combobox', { name: 'Project' }).waitFor();
      assert.equal(await page.getByRole('combobox', { name: 'Project' }).inputValue(), 'Fjord Coffee — 北欧');

      await checkPhoneWidth(ui.browser, server.url, page, projectPath, 'get-started', (p: Page) => p.getByRole('heading', { name: 'Get started' }).waitFor());
    } catch (error) {
      throw await withPageState(page, error);
    } finally {
      await page.context().close();
    }
  });
});
