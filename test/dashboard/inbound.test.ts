import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { uniqueEmail } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser } from '../kit/browser.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
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
});
