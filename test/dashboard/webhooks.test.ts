import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createAccount, createProject, uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import { client } from '../kit/http.ts';
import { type Receiver, type Reply, startReceiver } from '../kit/receiver.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** Two retries 0.4 s apart: three attempts, then `failed`. */
const SCHEDULE = '0.4,0.4';

describe('Dashboard: webhook endpoints', BROWSER_PASS, () => {
  let server: TestServer;
  let receiver: Receiver;
  const ui = useDashboardBrowser();
  let answer: Reply = { status: 200 };
  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE });
    receiver = await startReceiver(() => answer);
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
  });

  test('an owner adds an endpoint, keeps its secret, reads the log, replays failures, rotates, disables and deletes it; a member only reads', async () => {
    const project = await createProject(server.url);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}`);
      await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await page.getByText('No endpoint yet').waitFor();
      await assertAccessible(page, 'webhooks, empty');

      // The server's refusal shows on the field that caused it.
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add an endpoint' });
      await dialog.getByRole('textbox', { name: /^Endpoint URL/ }).fill('not a url');
      const events = dialog.getByLabel(/^Events/);
      await events.fill('email.*');
      await events.press('Enter');
      await events.fill('invoice.paid');
      await events.press('Enter');
      await events.press('Tab');
      await dialog.getByRole('button', { name: 'Create endpoint' }).click();
      await dialog.getByText(/Invalid URL/i).waitFor();
      await assertAccessible(page, 'add endpoint form with an error');

      const url = receiver.url('/orders');
      await dialog.getByRole('textbox', { name: /^Endpoint URL/ }).fill(url);
      await dialog.getByRole('textbox', { name: 'Description' }).fill('Order service — 注文サービス, production');
      await dialog.getByRole('button', { name: 'Create endpoint' }).click();

      // The secret is shown once; its copy button copies the one that signs the deliveries.
      const secretDialog = page.getByRole('dialog', { name: 'Endpoint added' });
      await secretDialog.getByRole('button', { name: 'Copy the signing secret' }).waitFor();
      await assertAccessible(page, 'secret shown once');
      await secretDialog.getByRole('button', { name: 'Copy the signing secret' }).click();
      const secret = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
      assert.match(secret, /^whsec_/);
      await secretDialog.getByRole('button', { name: 'I have stored it' }).click();
      await secretDialog.waitFor({ state: 'hidden' });
      assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');

      const row = page.getByRole('listitem', { name: `Endpoint ${url}` });
      await row.getByText('Order service — 注文サービス, production').waitFor();
      await row.getByText('email.*', { exact: true }).waitFor();
      await row.getByText('invoice.paid', { exact: true }).waitFor();
      await assertAccessible(page, 'webhooks with an endpoint');
      await screenshot(page, 'webhooks');
      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/webhooks`, 'webhooks', (p: Page) => p.getByRole('listitem', { name: `Endpoint ${url}` }).waitFor());

      // An event is delivered, signed with the copied secret, and its attempt is in the log.
      answer = { status: 200, body: 'accepted: 注文 INV-2026-0042' };
      await project.publicApi.post('/v1/track', { email: uniqueEmail('buyer'), event: 'invoice.paid', data: { invoice: 'INV-2026-0042', amount: 129 } });
      await receiver.waitFor(1, '/orders');
      const delivery = receiver.received.find((r) => r.path === '/orders')!;
      const payload = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string };
      assert.equal(payload.type, 'invoice.paid');

      await row.getByRole('link', { name: url }).click();
      await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
      const log = page.getByRole('region', { name: /^Message log/ });
      const delivered = log.getByRole('button', { name: /^Succeeded invoice\.paid/ });
      await delivered.waitFor();
      await delivered.click();
      const attempts = log.getByRole('table', { name: `Attempts of message ${delivery.headers['webhook-id']}` });
      await attempts.getByText('200', { exact: true }).waitFor();
      await attempts.getByText('accepted: 注文 INV-2026-0042').waitFor();
      await attempts.getByText(/^\d+ ms$/).waitFor();

      // A failing receiver: three attempts, then failed, each answer kept; "Replay now" sends it again.
      answer = { status: 503, body: 'Service indisponible — メンテナンス中' };
      await project.publicApi.post('/v1/track', { email: uniqueEmail('buyer'), event: 'invoice.paid', data: { invoice: 'INV-2026-0043' } });
      const failed = log.getByRole('button', { name: /^Failed invoice\.paid/ });
      await failed.waitFor({ timeout: 30_000 });
      await failed.click();
      const failedPanel = log.getByRole('region', { name: /^Failed invoice\.paid/ });
      assert.equal(await failedPanel.getByText('503', { exact: true }).count(), 3);
      await failedPanel.getByText('Service indisponible — メンテナンス中').first().waitFor();
      await assertAccessible(page, 'endpoint with its message log');
      await screenshot(page, 'webhook-endpoint');

      answer = { status: 204 };
      await failedPanel.getByRole('button', { name: 'Replay now' }).click();
      await log
        .getByRole('button', { name: /^Succeeded invoice\.paid/ })
        .nth(1)
        .waitFor({ timeout: 30_000 });

      // Replay of a window: only the failed messages of that window go again.
      answer = { status: 500, body: 'down' };
      await project.publicApi.post('/v1/track', { email: uniqueEmail('buyer'), event: 'invoice.paid', data: { invoice: 'INV-2026-0044' } });
      await log.getByRole('button', { name: /^Failed invoice\.paid/ }).waitFor({ timeout: 30_000 });
      answer = { status: 200 };
      const replayForm = page.getByRole('form', { name: 'Replay failed messages of a time window' });
      await replayForm.getByRole('button', { name: 'Replay failed messages' }).click();
      await replayForm.getByText('Pick when the window starts.').waitFor();
      // An hour ago in the browser's time zone, as a datetime-local field takes it.
      const anHourAgo = await page.evaluate(() => {
        const d = new Date(Date.now() - 3_600_000);
        return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
      });
      await replayForm.getByLabel(/^From/).fill(anHourAgo);
      await replayForm.getByRole('button', { name: 'Replay failed messages' }).click();
      await replayForm.getByText('1 failed message is being sent again.').waitFor();
      await log
        .getByRole('button', { name: /^Succeeded invoice\.paid/ })
        .nth(2)
        .waitFor({ timeout: 30_000 });
      assert.equal(await log.getByRole('button', { name: /^Failed invoice\.paid/ }).count(), 0);

      // Rotation shows the new secret once; the old one still signs beside it.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = page.getByRole('dialog', { name: 'Secret rotated' });
      const newSecret = (await rotated.getByLabel('Signing secret', { exact: true }).textContent())!.trim();
      assert.match(newSecret, /^whsec_/);
      assert.notEqual(newSecret, secret);
      await rotated.getByRole('button', { name: 'I have stored it' }).click();

      // Disabling is saved at once.
      const endpointId = new URL(page.url()).pathname.split('/').at(-1)!;
      await page.getByRole('switch', { name: 'Enabled' }).click();
      await page.getByText('Nothing is sent; messages wait and go out when it is enabled again.').waitFor();
      assert.equal((await project.api.get(`/webhook-endpoints/${endpointId}`)).body.enabled, false);

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/webhooks/${endpointId}`, 'webhook-endpoint', (p: Page) =>
        p
          .getByRole('button', { name: /^Succeeded invoice\.paid/ })
          .first()
          .waitFor(),
      );

      // A MEMBER reads the endpoint and its log, and sees why it cannot change them.
      const member = await createAccount(server.url);
      const added = await client(server.url, { cookie: project.owner.cookie }).post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' });
      assert.equal(added.status, 201, added.text);
      const memberPage = await pageAs(ui.browser, server.url, member);
      try {
        await memberPage.goto(`/p/${project.id}/webhooks/${endpointId}`);
        await memberPage.getByText('Your role (MEMBER) can read this endpoint and its log.', { exact: false }).waitFor();
        for (const name of ['Edit', 'Rotate secret', 'Delete', 'Replay failed messages'])
          assert.ok(await memberPage.getByRole('button', { name }).isDisabled(), `${name} is disabled`);
        assert.ok(await memberPage.getByRole('switch', { name: 'Enabled' }).isDisabled());
        await memberPage
          .getByRole('button', { name: /^Succeeded invoice\.paid/ })
          .first()
          .click();
        assert.ok(await memberPage.getByRole('button', { name: 'Replay now' }).first().isDisabled());
        await assertAccessible(memberPage, 'endpoint seen by a member');
        await memberPage.goto(`/p/${project.id}/webhooks`);
        assert.ok(await memberPage.getByRole('button', { name: 'Add endpoint' }).isDisabled());
      } finally {
        await memberPage.context().close();
      }

      // Deleting asks first, then the list is empty again.
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByText('No endpoint yet').waitFor();
      assert.equal((await project.api.get(`/webhook-endpoints/${endpointId}`)).status, 404);
    } finally {
      await page.context().close();
    }
  });
});
