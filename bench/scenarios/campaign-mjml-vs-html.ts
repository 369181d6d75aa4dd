import { startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import type { Client } from '../../test/kit/http.ts';
import type { Measurement, Scenario } from '../scenario.ts';
import { startSmtpCounter } from '../smtp-counter.ts';
import { DNS_PORT, RECIPIENTS, SMTP_PORT, seedAudience } from './campaign-send.ts';

/**
 * A newsletter in MJML as an author writes it: a header, two columns, an image, a table, a button,
 * three scripts, personalisation with fallbacks and the unsubscribe link. Its rendered HTML (about
 * 12 KB) becomes the HTML template the MJML one is compared with.
 */
const NEWSLETTER = `<mjml>
  <mj-head><mj-title>Winter at the print hall</mj-title><mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /></mj-attributes></mj-head>
  <mj-body background-color="#f4f1ea">
    <mj-section background-color="#1d3557"><mj-column>
      <mj-text color="#ffffff" font-size="24px">Winter at the print hall, {{ name ?? "friend" }}</mj-text>
    </mj-column></mj-section>
    <mj-section background-color="#ffffff">
      <mj-column>
        <mj-image src="https://cdn.example.com/hall.jpg" alt="The print hall by the canal" width="260px" />
      </mj-column>
      <mj-column>
        <mj-text>The presses are back in order and the windows face south: from December the workshop is open on Saturdays from ten until the light goes, and on Wednesday evenings for members on the {{ plan }} plan.</mj-text>
        <mj-text>活版印刷の基礎 — ご参加をお待ちしています。 مرحبا بكم في الورشة.</mj-text>
      </mj-column>
    </mj-section>
    <mj-section background-color="#ffffff"><mj-column>
      <mj-table>
        <tr style="text-align:left"><th>Course</th><th>Date</th><th>Seats</th></tr>
        <tr><td>Letterpress basics</td><td>12 December</td><td>8</td></tr>
        <tr><td>Bookbinding</td><td>19 December</td><td>6</td></tr>
        <tr><td>Linocut for beginners</td><td>9 January</td><td>10</td></tr>
      </mj-table>
      <mj-button href="https://example.com/courses?plan={{ plan }}" background-color="#e63946">Book a seat</mj-button>
    </mj-column></mj-section>
    <mj-section><mj-column>
      <mj-text font-size="12px" color="#555555">You get this because you subscribed to the workshop's news. <a href="{{ unsubscribeUrl }}">Unsubscribe</a></mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;

const round1 = (value: number) => Math.round(value * 10) / 10;

type Send = { format: 'mjml' | 'html'; seconds: number; delivered: number };

/** Sends campaign `id` and waits for SENT: seconds from the send request, and messages the relay received meanwhile. */
async function sendAndWait(api: Client, id: string, received: () => number): Promise<{ seconds: number; delivered: number }> {
  const before = received();
  const started = performance.now();
  const sent = await api.post(`/campaigns/${id}/send`);
  if (sent.status !== 200) throw new Error(`send answered ${sent.status}: ${sent.text.slice(0, 300)}`);
  let campaign = sent.body.data;
  const deadline = Date.now() + 60 * 60_000;
  while (campaign.status === 'SENDING' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    campaign = (await api.get(`/campaigns/${id}`)).body.data;
  }
  const seconds = (performance.now() - started) / 1000;
  if (campaign.status !== 'SENT') throw new Error(`campaign still ${campaign.status} after ${round1(seconds)} s`);
  return { seconds, delivered: received() - before };
}

/**
 * The same MARKETING campaign to RECIPIENTS contacts, once from an MJML template and once from an
 * HTML template holding the HTML that MJML rendered, in one run: MJML is rendered when the
 * template is saved, so both should send at the same rate (ratio ≥ 0.95, docs/templates.md).
 * After one unmeasured send, sent in the order MJML, HTML, HTML, MJML (duplicates for the later
 * sends), so that the email records the earlier sends leave behind weigh on both formats alike.
 */
export const campaignMjmlVsHtml: Scenario = {
  name: 'campaign-mjml-vs-html',
  description: `the same campaign to ${RECIPIENTS} contacts from an MJML template and from its rendered HTML, sent (after an unmeasured send) MJML, HTML, HTML, MJML: messages/s of each and their ratio`,
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}` } },
  setup: seedAudience,
  run: async (ctx): Promise<Measurement> => {
    const dns = await startDnsServer({ port: DNS_PORT });
    const relay = await startSmtpCounter(SMTP_PORT);
    const api = ctx.project.api;
    try {
      const from = `news@${(await verifiedDomain(ctx.project, dns)).domain}`;
      const saveStarted = performance.now();
      const mjml = await api.post('/templates', {
        name: 'Winter (MJML)',
        subject: 'Winter at the print hall, {{ name }}',
        format: 'mjml',
        source: NEWSLETTER,
        from,
        type: 'MARKETING',
      });
      const mjmlSaveMs = performance.now() - saveStarted;
      if (mjml.status !== 201) throw new Error(`POST /templates (mjml) answered ${mjml.status}: ${mjml.text.slice(0, 300)}`);
      const html = await api.post('/templates', { name: 'Winter (HTML)', subject: mjml.body.subject, body: mjml.body.body, from, type: 'MARKETING' });
      if (html.status !== 201) throw new Error(`POST /templates (html) answered ${html.status}: ${html.text.slice(0, 300)}`);

      const campaignOf = async (templateId: string, name: string) => {
        const created = await api.post('/campaigns', { name, templateId, audienceType: 'ALL' });
        if (created.status !== 201) throw new Error(`POST /campaigns answered ${created.status}: ${created.text.slice(0, 300)}`);
        if (created.body.data.totalRecipients !== RECIPIENTS) throw new Error(`audience of ${created.body.data.totalRecipients}, expected ${RECIPIENTS}`);
        return created.body.data;
      };
      const first = { mjml: await campaignOf(mjml.body.id, 'Winter from MJML'), html: await campaignOf(html.body.id, 'Winter from HTML') };
      if (first.mjml.format !== 'mjml' || first.html.format !== 'html' || first.mjml.body !== first.html.body) throw new Error('the two campaigns do not carry the same HTML');
      const again = async (id: string) => {
        const copy = await api.post(`/campaigns/${id}/duplicate`);
        if (copy.status !== 201) throw new Error(`duplicate answered ${copy.status}: ${copy.text.slice(0, 300)}`);
        return copy.body.data.id as string;
      };

      // One unmeasured send first: the first send after seeding pays the database's warm-up, which
      // the order below would not even out.
      process.stderr.write(`[bench] warm-up: sending the html campaign to ${RECIPIENTS}, unmeasured…\n`);
      await sendAndWait(api, await again(first.html.id), relay.count);

      const sends: Send[] = [];
      for (const [format, id] of [
        ['mjml', first.mjml.id],
        ['html', first.html.id],
        ['html', await again(first.html.id)],
        ['mjml', await again(first.mjml.id)],
      ] as const) {
        process.stderr.write(`[bench] sending the ${format} campaign to ${RECIPIENTS}…\n`);
        const result = await sendAndWait(api, id, relay.count);
        if (result.delivered !== RECIPIENTS) throw new Error(`the ${format} campaign delivered ${result.delivered} of ${RECIPIENTS}`);
        sends.push({ format, ...result });
      }
      const rate = (format: Send['format']) => {
        const of = sends.filter((s) => s.format === format);
        return of.reduce((sum, s) => sum + s.delivered, 0) / of.reduce((sum, s) => sum + s.seconds, 0);
      };
      const seconds = sends.reduce((sum, s) => sum + s.seconds, 0);
      return {
        reqPerSec: round1(rate('mjml')),
        unit: 'messages/s (MJML)',
        htmlMessagesPerSecond: round1(rate('html')),
        ratioMjmlToHtml: Math.round((rate('mjml') / rate('html')) * 1000) / 1000,
        secondsToSent: sends.map((s) => `${s.format} ${round1(s.seconds)}`).join(', '),
        renderedHtmlBytes: Buffer.byteLength(first.html.body),
        mjmlTemplateSaveMs: Math.round(mjmlSaveMs),
        p50Ms: null,
        p99Ms: null,
        errors: 0,
        non2xx: 0,
        durationSeconds: round1(seconds),
        connections: 1,
      };
    } finally {
      await relay.close();
      await dns.close();
    }
  },
};
