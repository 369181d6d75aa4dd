import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender, uniqueDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { eventually } from '../kit/workflows.ts';

const MX_HOST = 'mx.dashboard-inbound.example.test';

describe('Dashboard: received mail, the replies of an email and the SMTP credentials', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, SMTP_INBOUND_PORT: '0', SMTP_SUBMISSION_PORT: '0', SMTP_HOSTNAME: MX_HOST }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  test('the Inbound page lists a reply with its contact and opens it; the email page shows its reply; the API keys page shows the SMTP settings', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const domainId = (await project.api.get(`/domains/project/${project.id}`)).body.data[0].id;
    assert.equal((await project.api.patch(`/domains/${domainId}`, { inbound: true })).status, 200);
    const customer = uniqueEmail('ingrid');
    const sent = await project.api.post('/v1/send', { to: customer, from, subject: 'Din bestilling er sendt', body: '<p>Hei Ingrid,</p><p>Pakken er på vei.</p>' });
    assert.equal(sent.status, 200, sent.text);
    const emailId = sent.body.data.emails[0].email;
    const messageId = await eventually('the record sent', async () => (await project.api.get(`/emails/${emailId}`)).body.messageId ?? undefined);
    const inbound = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtp!.ports.inbound!, secure: false, ignoreTLS: true });
    await inbound.sendMail({
      envelope: { from: customer, to: [from] },
      from: { name: 'Ingrid Fjeld', address: customer },
      to: from,
      subject: 'Re: Din bestilling er sendt',
      inReplyTo: messageId,
      text: 'Tusen takk!\n\nKan dere levere på fredag?\n\n— Ingrid',
    });
    inbound.close();

    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/inbound`);
      const table = page.getByRole('table', { name: 'Received mail' });
      await table.getByRole('link', { name: 'Re: Din bestilling er sendt' }).waitFor();
      await table.getByRole('link', { name: `Ingrid Fjeld <${customer}>` }).waitFor();
      await assertAccessible(page, 'inbound');
      await screenshot(page, 'inbound');

      await table.getByRole('link', { name: 'Re: Din bestilling er sendt' }).click();
      await page.getByRole('heading', { name: 'Re: Din bestilling er sendt' }).waitFor();
      await page.getByText('Kan dere levere på fredag?').waitFor();
      await assertAccessible(page, 'inbound message');
      await page.getByRole('link', { name: 'the email we sent' }).click();
      const replies = page.getByRole('table', { name: 'Replies to this email' });
      await replies.getByRole('link', { name: 'Re: Din bestilling er sendt' }).waitFor();

      await page.goto(`/p/${project.id}/keys`);
      const smtp = page.getByRole('region', { name: 'SMTP credentials' });
      await smtp.getByText(MX_HOST).waitFor();
      await smtp.getByRole('button', { name: 'Copy the SMTP password' }).waitFor();

      await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/inbound`, 'inbound', (p) => p.getByRole('table', { name: 'Received mail' }).waitFor());
    } finally {
      await page.context().close();
    }
  });

  test('a user turns inbound mail on for a domain, sees the MX to publish, finds a message sent to it, and downloads its raw source as sent', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const domain = from.slice(from.indexOf('@') + 1);
    const pending = uniqueDomain('reply');
    assert.equal((await project.api.post('/domains', { domain: pending })).status, 201);
    const page = await pageAs(ui.browser, server.url, project.owner);
    try {
      await page.goto(`/p/${project.id}/domains`);
      // A domain not verified yet cannot receive: the refusal says what to do, and the switch stays off.
      const pendingCard = page.getByRole('region', { name: `Domain ${pending}` });
      const pendingSwitch = pendingCard.getByRole('switch', { name: `Receive mail at ${pending}` });
      await pendingSwitch.click();
      await pendingCard.getByRole('alert').filter({ hasText: 'Only a verified domain can receive mail.' }).waitFor();
      assert.equal(await pendingSwitch.isChecked(), false);

      const card = page.getByRole('region', { name: `Domain ${domain}` });
      await card.getByRole('switch', { name: `Receive mail at ${domain}` }).click();
      const mx = card.getByRole('group', { name: `MX record for the inbound mail of ${domain}` });
      await mx.getByText(`${domain} MX 10 ${MX_HOST}`).waitFor();
      assert.equal(await card.getByRole('switch', { name: `Receive mail at ${domain}` }).isChecked(), true);
      const listed = (await project.api.get(`/domains/project/${project.id}`)).body.data;
      assert.deepEqual(
        listed.map((d: { domain: string; inbound: boolean }) => [d.domain, d.inbound]).sort(),
        [
          [domain, true],
          [pending, false],
        ].sort(),
      );
      await assertAccessible(page, 'domains, inbound on');
      await screenshot(page, 'domains-inbound');

      // A customer's mail server delivers to the inbound listener: a question with a photo attached.
      const customer = uniqueEmail('lucia');
      const photo = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      const sent = Buffer.from(
        [
          `From: Lucía Ortega <${customer}>`,
          `To: Support <support@${domain}>`,
          'Subject: La lámpara llegó rota',
          `Message-ID: <order-5521-${Date.now()}@mail.example.net>`,
          'Date: Fri, 27 Nov 2026 10:12:00 +0100',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b1"',
          '',
          '--b1',
          'Content-Type: text/plain; charset=utf-8',
          'Content-Transfer-Encoding: 8bit',
          '',
          'Hola, la pantalla de la lámpara del pedido 5521 llegó rota. Adjunto una foto.',
          '',
          '--b1',
          'Content-Type: image/png; name="foto.png"',
          'Content-Disposition: attachment; filename="foto.png"',
          'Content-Transfer-Encoding: base64',
          '',
          photo.toString('base64'),
          '--b1--',
          '',
        ].join('\r\n'),
        'utf8',
      );
      const relay = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtp!.ports.inbound!, secure: false, ignoreTLS: true });
      await relay.sendMail({ envelope: { from: customer, to: [`support@${domain}`] }, raw: sent });
      relay.close();

      await page.goto(`/p/${project.id}/inbound`);
      const table = page.getByRole('table', { name: 'Received mail' });
      await table.getByRole('link', { name: 'La lámpara llegó rota' }).click();
      await page.getByRole('heading', { name: 'La lámpara llegó rota' }).waitFor();
      await page.getByText('foto.png').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download raw (.eml)' }).click()]);
      assert.match(download.suggestedFilename(), /^[0-9a-f-]{36}\.eml$/);
      const saved = await readFile((await download.path())!);
      assert.equal(saved.toString('utf8'), sent.toString('utf8'));
      assert.ok(saved.equals(sent), 'the download is the message byte for byte');
      await screenshot(page, 'inbound-message');
    } finally {
      await page.context().close();
    }
  });
});
