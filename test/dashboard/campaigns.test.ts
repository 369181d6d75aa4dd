import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { assertAccessible, BROWSER_PASS, checkPhoneWidth, pageAs, screenshot, useDashboardBrowser, withPageState } from '../kit/browser.ts';
import { waitForCampaign } from '../kit/campaigns.ts';
import { importCsv } from '../kit/contact-jobs.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const CONTACTS = 2000;
const address = (i: number) => `reader${String(i).padStart(4, '0')}@fjord.example`;
// Every contact's data, so the test knows who each filter selects.
const plan = (i: number) => (i % 2 === 0 ? 'pro' : 'free');
const city = (i: number) => (i % 10 === 0 ? 'Oslo' : 'Tromsø');
const subscribed = (i: number) => i % 7 !== 0;
// The segment built by mouse: pro AND (Oslo OR at least 1900 seats).
const member = (i: number) => plan(i) === 'pro' && (city(i) === 'Oslo' || i >= 1900);
const members = Array.from({ length: CONTACTS }, (_, i) => i).filter(member);
// Suppressed: fifteen subscribed members (suppressing unsubscribes them; they count as suppressed).
const suppressed = new Set(members.filter(subscribed).slice(0, 15));
const unsubscribed = members.filter((i) => !subscribed(i) && !suppressed.has(i)).length;
const eligible = members.length - suppressed.size - unsubscribed;

const SUBJECT = 'Vinterens nyheter fra Fjord — {{ data.city }}';
const BODY = [
  '<h1>Hei {{ data.city }}!</h1>',
  '<p>The winter roast is here: a darker blend from the Sidamo highlands, roasted in Tromsø and on its way to every shop this week. Subscribers get the first bags before the shops do.</p>',
  '<ul><li>Sidamo, 250 g</li><li>Kyōto-style cold brew kit</li><li>コーヒー豆 (whole beans)</li></ul>',
  '<p>Reply to this email with any question.</p>',
].join('\n');

/** Chooses `value` in the native select named `name`. */
const choose = (page: Page, name: string, value: string) => page.getByRole('combobox', { name, exact: true }).selectOption(value);

describe('Dashboard: a segment built by mouse, and a campaign to it checked, tested, scheduled and sent', BROWSER_PASS, () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let project: TestProject;
  let domain: string;
  let page: Page;
  let segmentId = '';
  let campaignId = '';
  const ui = useDashboardBrowser();
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
    project = await createProject(server.url);
    domain = (await verifiedDomain(project, dns)).domain;
    const lines = ['email,subscribed,plan,city,seats', ...Array.from({ length: CONTACTS }, (_, i) => `${address(i)},${subscribed(i) ? 'yes' : 'no'},${plan(i)},${city(i)},${i}`)];
    const job = await importCsv(project.api, lines.join('\n'));
    assert.equal(job.succeeded, CONTACTS, JSON.stringify(job.errors));
    for (const i of suppressed) assert.ok((await project.api.post('/suppressions', { email: address(i) })).status < 300);
    page = await pageAs(ui.browser, server.url, project.owner);
  });
  after(async () => {
    await page?.context().close();
    await server?.close();
    await sink?.close();
  });

  /** Runs a step; a failure carries what the page showed. */
  const step = (name: string, body: () => Promise<void>) =>
    test(name, async () => {
      try {
        await body();
      } catch (error) {
        throw await withPageState(page, error);
      }
    });

  step('build a nested segment by mouse; its live count equals the API’s member count', async () => {
    await page.goto(`/p/${project.id}/segments`);
    await page.getByText('No segment yet').waitFor();
    await assertAccessible(page, 'segments, empty');
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('heading', { name: 'New segment' }).waitFor();
    await page.getByRole('textbox', { name: 'Name' }).fill('Pro readers in Oslo or with big teams');
    await choose(page, 'Field of filter 1 in group 1', 'data.plan');
    await choose(page, 'Condition of filter 1 in group 1', 'equals');
    await page.getByRole('textbox', { name: 'Value of filter 1 in group 1' }).fill('pro');
    await page.getByRole('button', { name: 'Add nested group to group 1' }).click();
    const nested = 'filter 1 in group 1, nested group 1';
    await choose(page, `Field of ${nested}`, 'data.city');
    await choose(page, `Condition of ${nested}`, 'equals');
    await page.getByRole('textbox', { name: `Value of ${nested}` }).fill('Oslo');
    await page.getByRole('button', { name: 'Add group to group 1' }).click();
    const second = 'filter 1 in group 1, nested group 2';
    await choose(page, `Field of ${second}`, 'data.seats');
    await choose(page, `Condition of ${second}`, 'greaterThanOrEqual');
    await page.getByRole('textbox', { name: `Value of ${second}` }).fill('1900');
    // All groups: nobody is both in Oslo and in the second group's seats range.
    await page
      .getByTestId('live-count')
      .filter({ hasText: /^\d+ contacts? match$/ })
      .waitFor();
    await page.getByRole('radiogroup', { name: 'Match of nested conditions in group 1' }).getByText('any group').click();
    await page
      .getByTestId('live-count')
      .filter({ hasText: `${members.length} contacts match` })
      .waitFor();
    await assertAccessible(page, 'segment builder');
    await screenshot(page, 'segment-builder');

    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.waitForURL(/\/segments\/[0-9a-f-]{36}$/);
    segmentId = page.url().split('/').pop()!;
    const saved = await project.api.get(`/segments/${segmentId}`);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.memberCount, members.length, 'the API counts what the builder counted');
    assert.deepEqual(saved.body.condition, {
      logic: 'AND',
      groups: [
        {
          filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }],
          conditions: {
            logic: 'OR',
            groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'Oslo' }] }, { filters: [{ field: 'data.seats', operator: 'greaterThanOrEqual', value: 1900 }] }],
          },
        },
      ],
    });
    await page.getByRole('heading', { name: `Members (${members.length})` }).waitFor();
    await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/segments/${segmentId}`, 'segment-builder', (p) =>
      p
        .getByTestId('live-count')
        .filter({ hasText: `${members.length} contacts match` })
        .waitFor(),
    );
  });

  step('write a campaign to the segment; the audience check names who will not get it and why', async () => {
    await page.goto(`/p/${project.id}/campaigns`);
    await page.getByText('No campaign yet').waitFor();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await page.getByRole('textbox', { name: 'Campaign name' }).fill('Winter roast');
    await page.getByRole('textbox', { name: 'Subject' }).fill(SUBJECT);
    const body = page.getByRole('textbox', { name: 'Body (HTML and Liquid)' });
    await body.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await body.fill(BODY);
    await page.getByRole('button', { name: 'Next: Sender' }).click();
    await page.getByRole('textbox', { name: 'From address' }).fill('news');
    await choose(page, 'Domain', domain);
    await page.getByRole('textbox', { name: 'Sender name' }).fill('Fjord Coffee');
    await page.getByRole('button', { name: 'Next: Audience' }).click();
    await page.getByRole('radio', { name: 'A segment' }).check();
    await choose(page, 'Segment', segmentId);
    await page
      .getByTestId('eligible')
      .filter({ hasText: `${eligible.toLocaleString('en-US')} contacts will get it` })
      .waitFor();
    assert.match(await page.getByTestId('excluded-suppressed').innerText(), new RegExp(`^${suppressed.size}\\s`));
    assert.match(await page.getByTestId('excluded-unsubscribed').innerText(), new RegExp(`^${unsubscribed}\\s`));
    assert.match(await page.getByTestId('excluded-snoozed').innerText(), /^0\s/);
    const check = await project.api.post('/campaigns/audience', { audienceType: 'SEGMENT', segmentId });
    assert.deepEqual([check.body.eligible, check.body.excluded.suppressed, check.body.excluded.unsubscribed], [eligible, suppressed.size, unsubscribed]);
    await assertAccessible(page, 'campaign editor, audience check');
    await screenshot(page, 'campaign-audience-check');
    await page.getByRole('button', { name: 'Next: Test and send' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}\?step=3$/);
    campaignId = new URL(page.url()).pathname.split('/').pop()!;
    const saved = (await project.api.get(`/campaigns/${campaignId}`)).body.data;
    assert.deepEqual([saved.status, saved.audienceType, saved.segmentId, saved.from, saved.totalRecipients], ['DRAFT', 'SEGMENT', segmentId, `news@${domain}`, eligible]);
    await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/campaigns/${campaignId}?step=2`, 'campaign-audience-check', (p) =>
      p
        .getByTestId('eligible')
        .filter({ hasText: `${eligible.toLocaleString('en-US')} contacts will get it` })
        .waitFor(),
    );
  });

  step('the checks say the marketing mail has no unsubscribe link; a test copy asks first, then arrives marked [Test] and changes no counter', async () => {
    const checks = page.getByRole('list', { name: 'Checks before sending' });
    await checks.waitFor();
    const listed = await checks.getByRole('listitem').allInnerTexts();
    const api = await project.api.post(`/campaigns/${campaignId}/preview`, {});
    assert.deepEqual(
      api.body.checks.map((c: { code: string }) => c.code),
      ['NO_UNSUBSCRIBE_LINK'],
    );
    assert.deepEqual(listed, [`body: ${api.body.checks[0].message}`]);

    await page.getByRole('textbox', { name: 'Test address' }).fill('editor@fjord.example');
    await page.getByRole('button', { name: 'Send test' }).click();
    const ask = page.getByRole('dialog', { name: 'Send the test anyway?' });
    await ask.getByRole('list', { name: 'Checks of this content' }).getByText('Marketing mail needs a link to {{ unsubscribeUrl }}', { exact: false }).waitFor();
    await assertAccessible(page, 'test copy, checks to confirm');
    await ask.getByRole('button', { name: 'Send test anyway' }).click();
    await page.getByRole('status').filter({ hasText: 'editor@fjord.example' }).waitFor();
    const deadline = Date.now() + 30_000;
    while (!sink.messages.some((m) => m.envelope.to[0] === 'editor@fjord.example')) {
      assert.ok(Date.now() < deadline, 'the test copy never arrived');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const copy = sink.messages.find((m) => m.envelope.to[0] === 'editor@fjord.example')!;
    assert.match(String(copy.parsed.subject), /^\[Test\] Vinterens nyheter fra Fjord/);
    assert.equal((await project.api.get(`/campaigns/${campaignId}`)).body.data.sentCount, 0);
  });

  step('schedule it for tomorrow 09:00 in Oslo: the confirmation names the eligible count; the time is stored as chosen', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('radio', { name: 'At a date and time' }).check();
    await page.getByLabel('Date', { exact: true }).fill(tomorrow);
    await page.getByLabel('Time', { exact: true }).fill('09:00');
    await choose(page, 'Time zone', 'Europe/Oslo');
    await page.getByTestId('schedule-local').waitFor();
    await page.getByRole('button', { name: 'Schedule…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Schedule this campaign?' });
    await dialog
      .getByTestId('confirm-count')
      .filter({ hasText: `${eligible.toLocaleString('en-US')} contacts will get` })
      .waitFor();
    await dialog.getByRole('list', { name: 'Checks of this content' }).getByText('body', { exact: true }).waitFor();
    await assertAccessible(page, 'schedule confirmation');
    await dialog.getByRole('button', { name: `Schedule for ${eligible.toLocaleString('en-US')}` }).click();
    await page.getByText('It goes out on').waitFor();
    const scheduled = (await project.api.get(`/campaigns/${campaignId}`)).body.data;
    assert.equal(scheduled.status, 'SCHEDULED');
    const oslo = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Oslo',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(scheduled.scheduledFor));
    assert.equal(oslo, `${tomorrow.slice(8, 10)}/${tomorrow.slice(5, 7)}/${tomorrow.slice(0, 4)}, 09:00`);
  });

  step('send it now: the progress bar runs to SENT; the stats equal what the SMTP server received', async () => {
    await page.getByRole('radio', { name: 'Now' }).check();
    await page.getByRole('button', { name: 'Send now…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send this campaign now?' });
    await dialog.getByRole('button', { name: `Send to ${eligible.toLocaleString('en-US')}` }).click();
    await page
      .getByRole('progressbar')
      .or(page.getByText('Sent', { exact: true }))
      .first()
      .waitFor();
    await waitForCampaign(project.api, campaignId, ['SENT'], 120_000);
    // The page polls: wait until it shows every message sent, not only the total.
    const all = eligible.toLocaleString('en-US');
    await page
      .getByTestId('stat-sent')
      .filter({ hasText: new RegExp(`SENT\\s*${all}\\s*of\\s*${all}`, 'i') })
      .waitFor();
    const received = sink.messages.filter((m) => m.envelope.to[0] !== 'editor@fjord.example' && String(m.parsed.subject).startsWith('Vinterens nyheter fra Fjord'));
    assert.equal(received.length, eligible, 'the SMTP server got one message per eligible contact');
    assert.equal(new Set(received.map((m) => m.envelope.to[0])).size, eligible, 'nobody got two');
    assert.match(await page.getByTestId('stat-sent').innerText(), new RegExp(`^SENT\\s+${eligible.toLocaleString('en-US')}\\s`, 'i'));
    // The suppressed were unsubscribed by their suppression: a marketing send made no record for them.
    await page.getByRole('heading', { name: `Recipients (${eligible})` }).waitFor();
    await page
      .getByRole('table', { name: 'Recipients' })
      .getByRole('link', { name: received.map((m) => m.envelope.to[0]!).sort()[0]! })
      .waitFor();
    // The activity over time counts the same messages once the rollup has run.
    await page
      .getByRole('region', { name: 'Activity over time' })
      .getByRole('group', { name: `Sent: ${eligible}` })
      .waitFor();
    await assertAccessible(page, 'campaign stats');
    await screenshot(page, 'campaign-stats');
    await choose(page, 'Status', 'FAILED');
    await page.getByText('No recipient with this status.').waitFor();
    await checkPhoneWidth(ui.browser, server.url, page, `/p/${project.id}/campaigns/${campaignId}`, 'campaign-stats', (p) => p.getByTestId('stat-sent').waitFor());
  });

  step('the campaigns list finds it under Sent and by search; an unknown page is said inside the shell', async () => {
    await page.goto(`/p/${project.id}/campaigns`);
    await page.getByRole('tab', { name: 'Sent' }).click();
    await page.getByRole('table', { name: 'Campaigns' }).getByRole('link', { name: 'Winter roast' }).waitFor();
    await page.getByRole('tab', { name: 'Draft' }).click();
    await page.getByText('No campaign matches').waitFor();
    await page.getByRole('tab', { name: 'All' }).click();
    await page.getByRole('searchbox', { name: 'Search campaigns' }).fill('vinterens');
    await page.getByRole('table', { name: 'Campaigns' }).getByRole('link', { name: 'Winter roast' }).waitFor();
    await assertAccessible(page, 'campaigns list');
    await page.goto(`/p/${project.id}/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('navigation', { name: 'Project pages' }).getByRole('link', { name: 'Campaigns' }).waitFor();
  });

  step('filter contacts by a data field and export them: the CSV holds exactly those rows', async () => {
    await page.goto(`/p/${project.id}/contacts`);
    await page.getByText(`${CONTACTS.toLocaleString('en-US')} contacts match.`).waitFor();
    await page.getByRole('button', { name: 'Filter by data, events or segments' }).click();
    await choose(page, 'Field of filter 1 in group 1', 'data.city');
    await choose(page, 'Condition of filter 1 in group 1', 'equals');
    await page.getByRole('textbox', { name: 'Value of filter 1 in group 1' }).fill('Oslo');
    const oslo = Array.from({ length: CONTACTS }, (_, i) => i).filter((i) => city(i) === 'Oslo');
    await page
      .getByTestId('filter-count')
      .filter({ hasText: `${oslo.length} contacts match the filter` })
      .waitFor();
    await assertAccessible(page, 'contacts with a filter');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the filtered contacts (CSV)' }).click()]);
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\r\n');
    assert.deepEqual(lines[0]!.split(','), ['email', 'subscribed', 'createdAt', 'updatedAt', 'city', 'plan', 'seats']);
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(',')[0]),
      oslo.map(address),
    );
  });
});
