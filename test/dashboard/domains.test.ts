import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender, publishRecords, uniqueDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

describe('Dashboard: domains, API keys and the email record page', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  const ui = useDashboardBrowser();
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(async () => {
    await server?.close();
  });

  test('add a domain, publish its records, "check now" turns it verified; delete another after a confirmation', async () => {
    const project = await createProject(server.url);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/domains`);
      await page.getByText('No domain yet').waitFor();
      await assertAccessible(page, 'domains, empty');

      // A server-side refusal shows next to the field that caused it.
      await page.getByRole('textbox', { name: /^Domain/ }).fill('not a domain');
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('alert').or(page.locator('.mantine-InputWrapper-error')).first().waitFor();

      const name = uniqueDomain('news');
      await page.getByRole('textbox', { name: /^Domain/ }).fill(name);
      await page.getByRole('button', { name: 'Add domain' }).click();
      const card = page.getByRole('region', { name: `Domain ${name}` });
      await card.getByText('Pending').waitFor();
      const table = card.getByRole('table', { name: `DNS records of ${name}` });
      await table.getByText(`._domainkey.${name}`).waitFor();
      assert.equal(await table.getByText('Not checked yet').count(), await table.locator('tbody tr').count());

      // The copy buttons copy exactly what the API asks to publish.
      const listed = await project.api.get(`/domains/project/${project.id}`);
      const domain = listed.body.data.find((d: { domain: string }) => d.domain === name);
      const dkim = domain.records.find((r: { name: string }) => r.name.includes('._domainkey.'));
      await card.getByRole('button', { name: `Copy the value of the TXT record ${dkim.name}` }).click();
      assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>), dkim.value);

      // Nothing published yet: checking finds the records missing, the domain stays pending.
      await card.getByRole('button', { name: `Check now: the DNS of ${name}` }).click();
      await table.getByText('Missing').first().waitFor();
      await card.getByText('Pending').waitFor();

      publishRecords(dns, domain, true);
      await card.getByRole('button', { name: `Check now: the DNS of ${name}` }).click();
      await card.getByText('Verified', { exact: true }).waitFor();
      const dkimRow = table.getByRole('row').filter({ hasText: dkim.name });
      await dkimRow.getByText('Found').waitFor();
      await assertAccessible(page, 'domains, verified');
      await screenshot(page, 'domains');
      assert.equal((await project.api.get(`/domains/${domain.id}/verify`)).body.status, 'verified');

      const other = uniqueDomain('old');
      await page.getByRole('textbox', { name: /^Domain/ }).fill(other);
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('button', { name: `Delete ${other}` }).click();
      const dialog = page.getByRole('dialog', { name: `Delete ${other}?` });
      await dialog.getByRole('button', { name: 'Delete domain' }).click();
      await page.getByRole('region', { name: `Domain ${other}` }).waitFor({ state: 'detached' });
      const after = await project.api.get(`/domains/project/${project.id}`);
      assert.deepEqual(
        after.body.data.map((d: { domain: string }) => d.domain),
        [name],
      );

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/domains`, 'domains', (p) => p.getByText('Verified', { exact: true }).waitFor());
    } finally {
      await page.context().close();
    }
  });

  test('API keys are masked, revealed and copied; rotating them after the confirmation stops the old ones at once', async () => {
    const project = await createProject(server.url);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/keys`);
      const secret = page.getByRole('region', { name: 'Secret key' });
      const shown = secret.getByLabel('Secret key value');
      await shown.waitFor();
      assert.ok(!(await shown.innerText()).includes(project.secretKey), 'the secret key is masked at first');
      assert.match(await shown.innerText(), /^sk_/);
      await assertAccessible(page, 'API keys');
      await screenshot(page, 'keys');

      await secret.getByRole('button', { name: 'Reveal the secret key' }).click();
      assert.equal(await shown.innerText(), project.secretKey);
      await secret.getByRole('button', { name: 'Copy the secret key' }).click();
      assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>), project.secretKey);

      await page.getByRole('button', { name: 'Rotate keys' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate both keys?' });
      await dialog.getByText('the old keys stop working at once').waitFor();
      await assertAccessible(page, 'rotate confirmation');
      await dialog.getByRole('button', { name: 'Rotate keys now' }).click();
      await page.getByText('Keys rotated').waitFor();
      await secret.getByRole('button', { name: 'Reveal the secret key' }).click();
      const rotated = await shown.innerText();
      assert.match(rotated, /^sk_/);
      assert.notEqual(rotated, project.secretKey);
      assert.equal((await project.api.get('/v1/whoami')).status, 401, 'the old secret key stopped');
      assert.equal((await project.api.with({ key: rotated }).get('/v1/whoami')).status, 200, 'the shown key works');

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/keys`, 'keys', (p) => p.getByLabel('Secret key value').waitFor());
    } finally {
      await page.context().close();
    }
  });

  test('the email page shows a sent email as a timeline up to DELIVERED and its rendered message; its contact lists it', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const longLine = `${'Every parcel is packed by hand in our Reykjavík workshop and insured until it reaches you. '.repeat(12)}Thank you.`;
    const sent = await project.api.post('/v1/send', {
      to: { name: 'Ólafur Arnalds', email: 'olafur@fjord.example' },
      from: { name: 'Fjord Coffee', email: from },
      subject: 'Your order #1042 has shipped — 発送しました',
      body: `<h1>On its way, {{name}}</h1>
<p>Two parcels left our warehouse today.</p>
<p>ご注文ありがとうございます。 — شكراً لطلبك — Спасибо за заказ.</p>
<table><thead><tr><th>Item</th><th>Qty</th></tr></thead><tbody><tr><td>Espresso beans, 1 kg</td><td>2</td></tr><tr><td>Grinder — 研磨機</td><td>1</td></tr></tbody></table>
<p>${longLine}</p>
<p><a href="https://shop.example.com/orders/1042">Track your parcels</a></p>
<script>document.body.setAttribute('data-script-ran', 'yes')</script>`,
      data: { name: 'Ólafur' },
    });
    assert.equal(sent.status, 200, sent.text);
    const emailId = sent.body.data.emails[0].email;
    const record = (await project.api.get(`/emails/${emailId}`)).body;
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/emails/${emailId}`);
      await page.getByRole('heading', { name: 'Your order #1042 has shipped — 発送しました' }).waitFor();
      // The page polls the record until delivery ends it.
      await page.getByText('DELIVERED', { exact: true }).waitFor({ timeout: 60_000 });
      const timeline = page.getByLabel('Email timeline');
      for (const step of ['Queued', 'Sent', 'Delivered']) await timeline.getByText(step, { exact: true }).waitFor();

      // The message: its headers, the HTML in a frame that runs no script, and the text.
      const message = page.getByRole('region', { name: 'Message' });
      const headers = message.getByRole('table', { name: 'Message headers' });
      await headers.getByRole('row', { name: `From Fjord Coffee <${from}>` }).waitFor();
      await headers.getByRole('row', { name: 'To Ólafur Arnalds <olafur@fjord.example>' }).waitFor();
      await headers.getByRole('row', { name: 'Subject Your order #1042 has shipped — 発送しました' }).waitFor();
      await headers.getByRole('row', { name: `Message-ID ${record.messageId}` }).waitFor();
      const iframe = message.locator('iframe[title="The message as HTML"]');
      assert.equal(await iframe.getAttribute('sandbox'), '', 'no script, no same origin, no navigation of the dashboard');
      const html = page.frameLocator('iframe[title="The message as HTML"]');
      await html.getByRole('heading', { name: 'On its way, Ólafur' }).waitFor();
      await html.getByRole('cell', { name: 'Grinder — 研磨機' }).waitFor();
      await html.getByText('Спасибо за заказ').waitFor();
      await html.getByText(longLine).waitFor();
      assert.equal(await html.getByRole('link', { name: 'Track your parcels' }).getAttribute('href'), 'https://shop.example.com/orders/1042');
      assert.equal(await html.locator('body').getAttribute('data-script-ran'), null, 'the message script did not run');
      await assertAccessible(page, 'email');
      await screenshot(page, 'email');

      await message.getByRole('tab', { name: 'Text' }).click();
      const text = message.getByRole('tabpanel', { name: 'Text' });
      await text.getByText(/Two parcels left our warehouse today\./).waitFor();
      assert.match(await text.innerText(), /Espresso beans, 1 kg/);
      assert.match(await text.innerText(), /ご注文ありがとうございます/);
      await assertAccessible(page, 'email, text');

      // Scrolled to the message: Chromium does not paint an opaque-origin frame while it is off screen.
      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/emails/${emailId}`, 'email', async (p) => {
        await p.locator('iframe[title="The message as HTML"]').scrollIntoViewIfNeeded();
        await p.frameLocator('iframe[title="The message as HTML"]').getByRole('heading', { name: 'On its way, Ólafur' }).waitFor();
      });

      // Its contact's page lists it, and leads back to it.
      await page.getByRole('link', { name: 'olafur@fjord.example' }).click();
      await page.getByRole('heading', { name: 'olafur@fjord.example' }).waitFor();
      const emails = page.getByRole('table', { name: 'Emails to this contact' });
      const row = emails.getByRole('row').filter({ hasText: 'Your order #1042 has shipped — 発送しました' });
      await row.getByText('DELIVERED').waitFor();
      await row.getByRole('link').click();
      await page.getByRole('region', { name: 'Message' }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/p/${project.id}/emails/${emailId}`);
    } finally {
      await page.context().close();
    }
  });
});
